//! Every relation a built page prints holds at the printed precision: the test builds the
//! example site and the valid fixture sites, reads the numbers a reader sees, and re-derives
//! each relation between them (as tests/worked_sums.rs re-adds `{{ sum }}`):
//!
//! - figures: a neuron's value after GELU and the value before (`mlp`); a surprise and its
//!   probability (`loss`); a logit, the log-sum-exp and the probability, and the gap between
//!   the top two (`logits`); the probabilities and what the others share (`next-token`,
//!   `temperature`); a running total (`sampling`); q·k, the score, the softmax weights, the
//!   weight × value terms, their sums and the traced output (`attention-steps`);
//! - inline values (each carries its directive in `data-tb-of`): GELU of a printed `mlp.pre`
//!   against the printed `mlp.post` of the same neuron; and every printing of one probability,
//!   wherever on the site and however it is asked for (`top_prob`, `prob`, the logit lens's
//!   last layer, `exp(−loss)` of the token that came next), against each other.
//!
//! A printed number stands for any value within half a unit of its last digit, so a relation
//! holds when some values that round as printed satisfy it (to first order: the printed
//! result is within the propagated half-units of the printed inputs).

#[path = "support/cli.rs"]
mod cli;
/// The site crate's fixture harness: a copy of a fixture site with plausible traces (random
/// where weights would be needed, derived where a real trace derives).
#[path = "../generator/site/tests/support/mod.rs"]
mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tracebook_trace::Trace;

/// A printed number: its value and half a unit of its last digit (both in the same units; a
/// percentage as a fraction).
#[derive(Debug, Clone, Copy)]
struct Printed {
    value: f64,
    half_unit: f64,
}

/// Reads `−1.23`, `4.7%`, `0.80%`, `50,257`; None for anything else (`<0.01%`, text).
fn printed(text: &str) -> Option<Printed> {
    let text = text.trim().replace('−', "-").replace(',', "");
    let (digits, scale) = match text.strip_suffix('%') {
        Some(d) => (d.to_string(), 0.01),
        None => (text, 1.0),
    };
    let value: f64 = digits.parse().ok()?;
    let decimals = digits.find('.').map_or(0, |dot| digits.len() - dot - 1) as i32;
    Some(Printed {
        value: value * scale,
        half_unit: 0.5 * 10f64.powi(-decimals) * scale,
    })
}

/// What the test found and checked, for the failure messages and the final count.
#[derive(Default)]
struct Report {
    checked: usize,
    by_kind: BTreeMap<&'static str, usize>,
    failures: Vec<String>,
}

impl Report {
    /// Records that `got` should be within `tolerance` of `expected`.
    fn near(&mut self, kind: &'static str, place: &str, expected: f64, got: f64, tolerance: f64) {
        self.checked += 1;
        *self.by_kind.entry(kind).or_default() += 1;
        if (expected - got).abs() > tolerance + 1e-9 {
            self.failures.push(format!(
                "{place}: {kind}: printed {got}, but the printed numbers it follows from give \
                 {expected} (± {tolerance})"
            ));
        }
    }
}

fn gelu(x: f64) -> f64 {
    0.5 * x * (1.0 + (0.797_884_560_802_865_4 * (x + 0.044_715 * x.powi(3))).tanh())
}

// ---------------------------------------------------------------- figures

/// Each figure's SVG in `html`: (its kind, the parsed document's text).
fn figures(html: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find("<svg ") {
        let end = start + rest[start..].find("</svg>").expect("every svg is closed") + 6;
        let svg = &rest[start..end];
        if let Some(kind) = svg
            .split("class=\"tbf tbf-")
            .nth(1)
            .and_then(|k| k.split('"').next())
        {
            out.push((kind.to_string(), svg.to_string()));
        }
        rest = &rest[end..];
    }
    out
}

/// The `<text>` elements of an SVG in document order: (attributes, text, the classes of the
/// group around it).
struct Text {
    attrs: BTreeMap<String, String>,
    text: String,
    group: String,
    /// The index of the enclosing `<g>` among the document's groups.
    group_id: usize,
}

fn texts(svg: &str) -> Vec<Text> {
    let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("an SVG parses: {e}"));
    let groups: Vec<roxmltree::Node> = doc.descendants().filter(|n| n.has_tag_name("g")).collect();
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| {
            let parent = n.parent_element().filter(|p| p.has_tag_name("g"));
            Text {
                attrs: n
                    .attributes()
                    .map(|a| (a.name().to_string(), a.value().to_string()))
                    .collect(),
                text: n
                    .descendants()
                    .filter(|d| d.is_text())
                    .filter_map(|d| d.text())
                    .collect::<String>(),
                group: parent
                    .and_then(|p| p.attribute("class"))
                    .unwrap_or_default()
                    .to_string(),
                group_id: parent
                    .and_then(|p| groups.iter().position(|g| *g == p))
                    .unwrap_or(usize::MAX),
            }
        })
        .collect()
}

fn attr<'t>(t: &'t Text, name: &str) -> Option<&'t str> {
    t.attrs.get(name).map(String::as_str)
}

/// `a (from b)` and `a · b%` pairs: a value and the value it is a function of.
fn pairs<'t>(texts: &'t [Text], separator: &str) -> impl Iterator<Item = (Printed, Printed)> + 't {
    let separator = separator.to_string();
    texts.iter().filter_map(move |t| {
        let text = t.text.strip_suffix(')').unwrap_or(&t.text);
        let (a, b) = text.split_once(separator.as_str())?;
        Some((printed(a)?, printed(b)?))
    })
}

fn check_figure(kind: &str, svg: &str, place: &str, report: &mut Report) {
    let texts = texts(svg);
    match kind {
        "mlp" => {
            for (post, pre) in pairs(&texts, " (from ") {
                let tolerance = 1.13 * pre.half_unit + post.half_unit;
                report.near(
                    "GELU(before) = after",
                    place,
                    gelu(pre.value),
                    post.value,
                    tolerance,
                );
            }
        }
        "loss" => {
            for (loss, p) in pairs(&texts, " · ") {
                let expected = (-loss.value).exp();
                let tolerance = expected * loss.half_unit * 1.01 + p.half_unit;
                report.near("p = exp(−surprise)", place, expected, p.value, tolerance);
            }
        }
        "next-token" => {
            let shown = tagged(&texts, "data-tb-pct");
            let rest = texts
                .iter()
                .filter(|t| attr(t, "data-tb-note").is_some())
                .find_map(|t| t.text.split("share ").nth(1).and_then(printed));
            if let Some(rest) = rest {
                let what = "the candidates and the rest make 100%";
                total_is(&shown, rest, what, place, report);
            }
        }
        "temperature" => {
            let mut column: Vec<Printed> = Vec::new();
            for t in &texts {
                if attr(t, "data-tb-head").is_some() {
                    column.clear();
                } else if attr(t, "data-tb-pct").is_some() {
                    column.extend(printed(&t.text));
                } else if attr(t, "data-tb-rest").is_some() {
                    if let Some(rest) = t.text.strip_prefix("others ").and_then(printed) {
                        let what = "a temperature's column makes 100%";
                        total_is(&column, rest, what, place, report);
                    }
                }
            }
        }
        "sampling" => {
            let (p, cum) = (tagged(&texts, "data-tb-p"), tagged(&texts, "data-tb-cum"));
            for (r, total) in cum.iter().enumerate() {
                let sum: f64 = p[..=r].iter().map(|x| x.value).sum();
                let tolerance: f64 =
                    p[..=r].iter().map(|x| x.half_unit).sum::<f64>() + total.half_unit;
                report.near("running total", place, sum, total.value, tolerance);
            }
        }
        "logits" => check_logits(&texts, place, report),
        "attention-steps" => check_steps(&texts, place, report),
        _ => {}
    }
}

/// `terms` and `rest` add up to 100%.
fn total_is(
    terms: &[Printed],
    rest: Printed,
    what: &'static str,
    place: &str,
    report: &mut Report,
) {
    let sum: f64 = terms.iter().map(|p| p.value).sum::<f64>() + rest.value;
    let tolerance: f64 = terms.iter().map(|p| p.half_unit).sum::<f64>() + rest.half_unit;
    report.near(what, place, 1.0, sum, tolerance);
}

/// The numbers of the texts that carry the attribute `name`, in order.
fn tagged(texts: &[Text], name: &str) -> Vec<Printed> {
    texts
        .iter()
        .filter(|t| attr(t, name).is_some())
        .filter_map(|t| printed(&t.text))
        .collect()
}

/// The logits figure: each probability is exp(logit − m) with the printed m, and the gap
/// between the top two is e^gap in probability.
fn check_logits(texts: &[Text], place: &str, report: &mut Report) {
    // The notes may be wrapped over several lines: they are read as one text.
    let joined = texts
        .iter()
        .map(|t| t.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let m = joined
        .split(" logits = ")
        .nth(1)
        .and_then(|rest| printed(rest.split_whitespace().next()?));
    // In document order: the logits column, the probabilities column, then the axis ticks.
    let numbers: Vec<(Printed, bool)> = texts
        .iter()
        .filter_map(|t| Some((printed(&t.text)?, t.text.ends_with('%'))))
        .collect();
    let first_pct = numbers.iter().position(|(_, pct)| *pct).unwrap_or(0);
    let logits: Vec<Printed> = numbers[..first_pct].iter().map(|(p, _)| *p).collect();
    let probs: Vec<Printed> = numbers
        .iter()
        .filter(|(_, pct)| *pct)
        .map(|(p, _)| *p)
        .collect();
    if let Some(m) = m {
        for (l, p) in logits.iter().zip(&probs) {
            let expected = (l.value - m.value).exp();
            let tolerance = expected * ((l.half_unit + m.half_unit).exp() - 1.0) + p.half_unit;
            report.near("p = exp(logit − m)", place, expected, p.value, tolerance);
        }
    }
    let gap = (|| {
        let rest = joined.split_once("top two: a gap of ")?.1;
        let (gap, rest) = rest.split_once(" in logit is e^")?;
        let ratio = rest.split_once(" = ")?.1.split('×').next()?;
        Some((printed(gap)?, printed(ratio)?))
    })();
    if let (Some((gap, ratio)), [a, b, ..]) = (gap, logits.as_slice()) {
        let tolerance = a.half_unit + b.half_unit + gap.half_unit;
        report.near(
            "the gap of the top two logits",
            place,
            a.value - b.value,
            gap.value,
            tolerance,
        );
        let e = gap.value.exp();
        report.near(
            "e^gap",
            place,
            e,
            ratio.value,
            e * gap.half_unit * 1.01 + ratio.half_unit,
        );
    }
}

/// The attention-steps table: q·k ÷ √dₕ = score; softmax(scores) = weights; every column of
/// weights and weight × value terms adds up to its printed sum; the sums are the traced z.
fn check_steps(texts: &[Text], place: &str, report: &mut Report) {
    let root = texts
        .iter()
        .find_map(|t| t.text.split("√dₕ = ").nth(1).and_then(printed));
    let mut rows: BTreeMap<usize, Vec<Printed>> = BTreeMap::new();
    let mut folded = false;
    let mut sums: Vec<Printed> = Vec::new();
    for t in texts {
        if t.group.contains("tbf-b") && t.group.contains("tbf-s") {
            sums.extend(printed(&t.text));
        } else if t.group.is_empty() || t.group == "tbf-b" {
            if let Some(p) = printed(&t.text) {
                rows.entry(t.group_id).or_default().push(p);
            }
        }
        // The row of folded keys: "N more" (attention_steps.rs).
        folded |= (t.text.split_once(' '))
            .is_some_and(|(n, word)| word == "more" && n.parse::<usize>().is_ok());
    }
    let rows: Vec<Vec<Printed>> = rows.into_values().filter(|r| r.len() >= 4).collect();
    let Some(columns) = rows.first().map(Vec::len) else {
        return;
    };
    if let Some(root) = root.filter(|_| !folded) {
        for row in &rows {
            let (qk, score) = (row[0], row[1]);
            let tolerance = qk.half_unit / root.value
                + qk.value.abs() * root.half_unit / root.value.powi(2)
                + score.half_unit;
            report.near(
                "q·k ÷ √dₕ = score",
                place,
                qk.value / root.value,
                score.value,
                tolerance,
            );
        }
        let scores: Vec<f64> = rows.iter().map(|r| r[1].value).collect();
        let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let total: f64 = scores.iter().map(|s| (s - max).exp()).sum();
        for row in &rows {
            let expected = (row[1].value - max).exp() / total;
            let tolerance = expected * (2.0 * row[1].half_unit).exp_m1() + row[2].half_unit;
            report.near(
                "softmax of the scores = weight",
                place,
                expected,
                row[2].value,
                tolerance,
            );
        }
    }
    // sums: the weights' total, then one per value column, then the traced z of the note.
    for c in 2..columns {
        let Some(&total) = sums.get(c - 2) else { break };
        let column: Vec<Printed> = rows.iter().map(|r| r[c]).collect();
        let sum: f64 = column.iter().map(|p| p.value).sum();
        let tolerance: f64 = column.iter().map(|p| p.half_unit).sum::<f64>() + total.half_unit;
        report.near(
            "a column adds up to its sum",
            place,
            sum,
            total.value,
            tolerance,
        );
    }
    let traced = texts.iter().find_map(|t| {
        let inside = t.text.split("(traced: ").nth(1)?.strip_suffix(')')?;
        inside.split(", ").map(printed).collect::<Option<Vec<_>>>()
    });
    for (z, sum) in traced.unwrap_or_default().iter().zip(sums.iter().skip(1)) {
        report.near(
            "the sum is the traced z",
            place,
            z.value,
            sum.value,
            z.half_unit + sum.half_unit,
        );
    }
}

// ---------------------------------------------------------------- inline values

/// Every `<span ... data-tb-of="DIRECTIVE">TEXT</span>` of `html`.
fn inline_values(html: &str) -> Vec<(String, String)> {
    html.split("data-tb-of=\"")
        .skip(1)
        .filter_map(|rest| {
            let (directive, rest) = rest.split_once("\">")?;
            let text = rest.split("</span>").next()?;
            let unescape = |s: &str| {
                s.replace("&quot;", "\"")
                    .replace("&#39;", "'")
                    .replace("&amp;", "&")
            };
            Some((unescape(directive), unescape(text)))
        })
        .collect()
}

/// An event whose probability several directives may print: (prompt, position, token id).
type Event = (String, usize, u32);

/// The traces of a site, read on first use.
struct Traces {
    dir: PathBuf,
    read: BTreeMap<String, Trace>,
}

impl Traces {
    fn get(&mut self, prompt: &str) -> Option<&Trace> {
        if !self.read.contains_key(prompt) {
            let trace = Trace::read(&self.dir.join(format!("{prompt}.json"))).ok()?;
            self.read.insert(prompt.to_string(), trace);
        }
        self.read.get(prompt)
    }
}

/// `tensor[i, j, ...]` as its name and integer indices.
fn indexed(expr: &str) -> Option<(&str, Vec<i64>)> {
    let (name, rest) = expr.split_once('[')?;
    let indices = rest
        .strip_suffix(']')?
        .split(',')
        .map(|i| i.trim().parse().ok())
        .collect::<Option<Vec<i64>>>()?;
    Some((name, indices))
}

fn resolve(i: i64, size: usize) -> usize {
    if i < 0 {
        (i + size as i64) as usize
    } else {
        i as usize
    }
}

/// The probability event a directive prints, with the printed probability.
fn probability_event(directive: &str, text: &str, traces: &mut Traces) -> Option<(Event, Printed)> {
    let mut words = directive.splitn(3, ' ');
    let (what, prompt, arg) = (words.next()?, words.next()?, words.next().unwrap_or(""));
    let trace = traces.get(prompt)?;
    let n = trace.meta.tokens.len();
    let value = printed(text)?;
    match what {
        "top_prob" => {
            let ids = trace.tensor("logits.topk_ids").ok()?;
            let k = *ids.shape.last()?;
            let rank: i64 = arg.parse().ok()?;
            let r = if rank > 0 {
                rank as usize - 1
            } else {
                resolve(rank, k)
            };
            Some((
                (prompt.into(), n - 1, ids.data[(n - 1) * k + r] as u32),
                value,
            ))
        }
        "prob" => {
            let id = match arg.strip_prefix('"').and_then(|a| a.strip_suffix('"')) {
                Some(text) => *trace.meta.token_texts.iter().find(|(_, t)| *t == text)?.0,
                None => arg.parse().ok()?,
            };
            Some(((prompt.into(), n - 1, id), value))
        }
        "value" => {
            let (name, idx) = indexed(arg)?;
            match name {
                "logit_lens.topk_probs" => {
                    let ids = trace.tensor("logit_lens.topk_ids").ok()?;
                    let (layers, k) = (ids.shape[0], ids.shape[2]);
                    let l = resolve(idx[0], layers);
                    let (pos, r) = (resolve(idx[1], n), resolve(idx[2], k));
                    // Only the last layer is the model's own prediction.
                    (l + 1 == layers).then_some(())?;
                    let id = ids.data[(l * n + pos) * k + r] as u32;
                    Some(((prompt.into(), pos, id), value))
                }
                "loss.per_token" => {
                    let i = resolve(idx[0], n - 1);
                    let next = trace.meta.tokens[i + 1].id;
                    let p = Printed {
                        value: (-value.value).exp(),
                        half_unit: (-value.value).exp() * value.half_unit * 1.01,
                    };
                    Some(((prompt.into(), i, next), p))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

fn check_inline(values: &[(String, String, String)], traces: &mut Traces, report: &mut Report) {
    // GELU of a neuron's printed value before, against its printed value after.
    let mut before = BTreeMap::new();
    for (page, directive, text) in values {
        if let Some(rest) = directive.strip_prefix("value ") {
            if rest.contains(".mlp.pre[") {
                before.insert(
                    rest.replace(".mlp.pre[", ".mlp.post["),
                    (page.clone(), text.clone()),
                );
            }
        }
    }
    for (page, directive, text) in values {
        let key = directive.strip_prefix("value ").unwrap_or_default();
        if let (Some((_, pre)), Some(post)) = (before.get(key), printed(text)) {
            let pre = printed(pre).expect("a printed number");
            let tolerance = 1.13 * pre.half_unit + post.half_unit;
            let place = format!("{page}: {{{{ {directive} }}}}");
            report.near(
                "GELU(mlp.pre) = mlp.post",
                &place,
                gelu(pre.value),
                post.value,
                tolerance,
            );
        }
    }
    // One probability, however it is asked for, prints alike everywhere.
    let mut events: BTreeMap<Event, Vec<(String, Printed)>> = BTreeMap::new();
    for (page, directive, text) in values {
        if let Some((event, p)) = probability_event(directive, text, traces) {
            events
                .entry(event)
                .or_default()
                .push((format!("{page}: {{{{ {directive} }}}} = {text}"), p));
        }
    }
    for printings in events.values() {
        let (first_place, first) = &printings[0];
        for (place, p) in &printings[1..] {
            let what = format!("{place}, and {first_place}");
            report.near(
                "one probability, printed twice",
                &what,
                first.value,
                p.value,
                first.half_unit + p.half_unit,
            );
        }
    }
}

// ---------------------------------------------------------------- the sites

fn build(root: &Path, home: &Path) -> PathBuf {
    let public = home.join("public");
    let output = cli::command(home)
        .arg("--root")
        .arg(root)
        .args(["build", "--out", public.to_str().unwrap()])
        .output()
        .unwrap();
    cli::ok(&output, &format!("build of {}", root.display()));
    public
}

fn check_site(root: &Path, report: &mut Report) {
    let home = tempfile::tempdir().unwrap();
    let public = build(root, home.path());
    let mut traces = Traces {
        dir: root.join("traces"),
        read: BTreeMap::new(),
    };
    let mut values = Vec::new();
    let mut pages: Vec<PathBuf> = std::fs::read_dir(&public)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .collect();
    pages.sort();
    for path in pages {
        let page = path.file_name().unwrap().to_string_lossy().into_owned();
        let html = std::fs::read_to_string(&path).unwrap();
        for (i, (kind, svg)) in figures(&html).iter().enumerate() {
            check_figure(
                kind,
                svg,
                &format!("{page}: figure {} ({kind})", i + 1),
                report,
            );
        }
        values.extend(
            inline_values(&html)
                .into_iter()
                .map(|(directive, text)| (page.clone(), directive, text)),
        );
    }
    check_inline(&values, &mut traces, report);
}

#[test]
fn every_relation_the_example_site_prints_holds_at_the_printed_precision() {
    let mut report = Report::default();
    check_site(Path::new(env!("CARGO_MANIFEST_DIR")), &mut report);
    eprintln!(
        "{} relations checked on the example site: {:?}",
        report.checked, report.by_kind
    );
    assert!(report.failures.is_empty(), "{}", report.failures.join("\n"));
    for kind in [
        "GELU(before) = after",
        "p = exp(−surprise)",
        "the candidates and the rest make 100%",
        "a column adds up to its sum",
        "softmax of the scores = weight",
        "the sum is the traced z",
        "GELU(mlp.pre) = mlp.post",
        "one probability, printed twice",
    ] {
        assert!(
            report.by_kind.contains_key(kind),
            "no relation of kind {kind:?} was found"
        );
    }
    assert!(
        report.checked >= 200,
        "only {} relations found",
        report.checked
    );
}

#[test]
fn every_relation_the_valid_fixture_sites_print_holds_at_the_printed_precision() {
    let mut report = Report::default();
    for fixture in support::fixtures("valid") {
        let site = support::TempSite::new(&fixture);
        check_site(site.root(), &mut report);
    }
    eprintln!(
        "{} relations checked on the fixture sites: {:?}",
        report.checked, report.by_kind
    );
    assert!(report.failures.is_empty(), "{}", report.failures.join("\n"));
    assert!(report.checked > 0);
}

#[test]
fn the_rules_catch_relations_that_do_not_hold() {
    let mut report = Report::default();
    let svg = |body: &str| {
        format!("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"tbf tbf-x\"><g>{body}</g></svg>")
    };
    check_figure(
        "mlp",
        &svg("<text>1.697 (from 1.777)</text><text>1.71 (from 1.78)</text>"),
        "mlp",
        &mut report,
    );
    check_figure(
        "loss",
        &svg("<text>0.01791 · 98.0%</text><text>0.021 · 98.0%</text>"),
        "loss",
        &mut report,
    );
    check_figure(
        "next-token",
        &svg("<text data-tb-pct=\"0\">60.0%</text><text data-tb-note=\"0\">the other 9 tokens share 39.0%</text>"),
        "next",
        &mut report,
    );
    assert_eq!(report.checked, 5);
    assert_eq!(report.failures.len(), 3, "{:?}", report.failures);
    assert!(report.failures[0].contains("GELU"));
    assert!(report.failures[1].contains("exp(−surprise)"));
    assert!(report.failures[2].contains("100%"));
    let p = printed("−0.80%").unwrap();
    assert_eq!((p.value, p.half_unit), (-0.008, 0.00005));
}
