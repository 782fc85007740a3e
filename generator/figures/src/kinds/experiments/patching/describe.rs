//! The words of `figure patching` (its alt text): the two prompts and where they differ,
//! the score, and the sites and heads whose patching restores the clean run most.

use super::View;
use crate::format::signed;
use crate::prompt::Prompt;
use crate::relations::Relation;
use crate::token_text::one_line;
use tracebook_trace::Patching;

/// What a reader can check in the alt text: the highest scores it lists fall from the first
/// (the residual stream's, and the heads'), and the lowest head's is below the last of them.
pub(super) fn relations(prompt: &Prompt<'_>, patching: &Patching, view: View) -> Vec<Relation> {
    let mut out = Vec::new();
    let score = |text: &String| text.split(' ').next().unwrap_or_default().to_string();
    let head_score = |said: &String| {
        let score = said.rsplit('(').next().unwrap_or_default();
        score.trim_end_matches(')').to_string()
    };
    let order = |values: Vec<String>| Relation::Order {
        values,
        descending: true,
    };
    if view != View::Heads {
        out.push(order(
            best_sites(prompt, patching, 2).iter().map(score).collect(),
        ));
    }
    if view != View::Resid {
        let (top, lowest) = best_heads(patching, 3);
        let mut heads: Vec<String> = top.iter().map(head_score).collect();
        heads.extend(lowest.as_ref().map(head_score));
        out.push(order(heads));
    }
    out
}

/// "0.98 at " robots" (position 1) entering layer 0": the highest scores of the residual
/// stream, at most one per position.
fn best_sites(prompt: &Prompt<'_>, patching: &Patching, most: usize) -> Vec<String> {
    let mut sites: Vec<(usize, usize, f32)> = (patching.resid.iter().enumerate())
        .flat_map(|(l, row)| row.iter().enumerate().map(move |(p, &v)| (l, p, v)))
        .collect();
    sites.sort_by(|a, b| b.2.total_cmp(&a.2).then((a.0, a.1).cmp(&(b.0, b.1))));
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for (l, p, v) in sites {
        if seen.contains(&p) || out.len() == most {
            continue;
        }
        seen.push(p);
        let token = &prompt.trace.meta.tokens[p].text;
        out.push(format!(
            "{} at {token:?} (position {p}) entering layer {l}",
            signed(f64::from(v), 2)
        ));
    }
    out
}

/// "head 0 of layer 1 (0.72)": the heads whose patching scores highest, and the lowest if
/// it is below zero.
fn best_heads(patching: &Patching, most: usize) -> (Vec<String>, Option<String>) {
    let mut heads: Vec<(usize, usize, f32)> = (patching.heads.iter().enumerate())
        .flat_map(|(l, row)| row.iter().enumerate().map(move |(h, &v)| (l, h, v)))
        .collect();
    heads.sort_by(|a, b| b.2.total_cmp(&a.2).then((a.0, a.1).cmp(&(b.0, b.1))));
    let said = |&(l, h, v): &(usize, usize, f32)| {
        format!("head {h} of layer {l} ({})", signed(f64::from(v), 2))
    };
    let top = heads.iter().take(most).map(said).collect();
    let lowest = heads.last().filter(|h| h.2 < 0.0).map(said);
    (top, lowest)
}

pub(super) fn describe(prompt: &Prompt<'_>, patching: &Patching, view: View) -> String {
    let differ: Vec<String> = (prompt.trace.meta.tokens.iter())
        .zip(&patching.corrupted_tokens)
        .enumerate()
        .filter(|(_, (a, b))| a.text != b.text)
        .map(|(p, (a, b))| format!("{:?} → {:?} at position {p}", a.text, b.text))
        .collect();
    let mut out = format!(
        "Activation patching from the clean prompt {:?} into the corrupted {:?} (they differ: \
         {}). The score is the logit difference logit({:?}) − logit({:?}) of the corrupted run \
         with one clean activation copied in, rescaled so that 0 is the corrupted run's ({}) \
         and 1 the clean run's ({}).",
        one_line(&prompt.trace.meta.prompt.text),
        one_line(&patching.corrupted),
        differ.join(", "),
        patching.answer.text,
        patching.wrong.text,
        signed(f64::from(patching.corrupted_diff), 2),
        signed(f64::from(patching.clean_diff), 2),
    );
    if view != View::Heads {
        out.push_str(&format!(
            " Patching the residual stream at one position, the highest scores are {}.",
            best_sites(prompt, patching, 2).join(" and ")
        ));
    }
    if view != View::Resid {
        let (top, lowest) = best_heads(patching, 3);
        out.push_str(&format!(
            " Patching one head's output at every position, the highest scores are {}",
            top.join(", ")
        ));
        match lowest {
            Some(low) => out.push_str(&format!("; the lowest, {low}.")),
            None => out.push('.'),
        }
    }
    out
}
