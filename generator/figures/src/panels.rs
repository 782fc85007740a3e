//! Panels: a figure drawn several times at build time (e.g. every head of a layer), one
//! shown and the others hidden, with the picker the page's script builds from them. With
//! scripts off the page shows the figure's own panel, as if it had no others.

use crate::svg::Element;

/// One drawing and the picker values that name it, e.g. `[("layer", 1), ("head", 3)]`.
pub struct Panel {
    pub key: Vec<(&'static str, usize)>,
    pub body: Vec<Element>,
}

/// Panels a figure carries in the page itself; a figure with more (every head of every layer
/// of GPT-2 small is 144) carries only its own and defers the others to a file the page's
/// script loads when the reader first picks, so the page stays light before anyone picks.
pub const INLINE_PANELS: usize = 16;

/// Every panel but `shown`, each as its `<g data-tb-panel>` group's markup (hidden), keyed
/// by the panel's key: a JSON object, what `Figure::deferred` holds.
pub fn deferred(panels: &[Panel], shown: usize) -> String {
    let entries: Vec<String> = panels
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != shown)
        .map(|(_, panel)| {
            let mut group = Element::new("g")
                .attr("data-tb-panel", key_text(&panel.key))
                .attr("display", "none");
            for element in &panel.body {
                group.push(element.clone());
            }
            format!(
                "{}:{}",
                json_string(&key_text(&panel.key)),
                json_string(&group.render())
            )
        })
        .collect();
    format!("{{{}}}", entries.join(","))
}

/// One panel per target of an experiment, as a figure's body with the picker's JSON: a single
/// panel alone (no picker); several stacked, all but `shown` hidden, each picker option labelled
/// by `label`; or, when `defer`, only `shown` in the page and the others in the deferred
/// JSON (`Figure::deferred`). Returns the body, the picker's JSON and the deferred panels.
pub fn by_target(
    mut panels: Vec<Panel>,
    shown: usize,
    label: &dyn Fn(&str, usize) -> Option<String>,
    defer: bool,
) -> (Vec<Element>, Option<String>, Option<String>) {
    if panels.len() == 1 {
        return (panels.remove(0).body, None, None);
    }
    let live = json_labelled(&panels, shown, label);
    if defer {
        let deferred = deferred(&panels, shown);
        let own = panels.swap_remove(shown);
        (stack(vec![own], 0), Some(live), Some(deferred))
    } else {
        (stack(panels, shown), Some(live), None)
    }
}

/// The size that holds every panel, each given with its right edge and bottom: at least
/// `least_width` wide, with a little room under the lowest.
pub fn extent<P>(panels: &[(P, f64, f64)], least_width: f64) -> (f64, f64) {
    let width = panels.iter().fold(least_width, |w, p| w.max(p.1)).ceil();
    let height = panels.iter().fold(0.0, |h: f64, p| h.max(p.2)) + 4.0;
    (width, height)
}

/// Every panel in a group of its own, all but `shown` hidden; each group names its panel
/// in `data-tb-panel` ("1 3": the values of the keys, in order).
pub fn stack(panels: Vec<Panel>, shown: usize) -> Vec<Element> {
    panels
        .into_iter()
        .enumerate()
        .map(|(i, panel)| {
            let mut group = Element::new("g").attr("data-tb-panel", key_text(&panel.key));
            if i != shown {
                group = group.attr("display", "none");
            }
            for element in panel.body {
                group.push(element);
            }
            group
        })
        .collect()
}

/// `text` as a JSON string (safe inside a `<script>`: no `<`).
pub fn json_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '<' => out.push_str("\\u003c"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn key_text(key: &[(&'static str, usize)]) -> String {
    let values: Vec<String> = key.iter().map(|(_, v)| v.to_string()).collect();
    values.join(" ")
}

/// The JSON object for the page's script: the picker names, each one's values, and the
/// panel shown first.
pub fn json(panels: &[Panel], shown: usize) -> String {
    json_labelled(panels, shown, &|_, _| None)
}

/// [`json`] with a label for each value where `label(name, value)` gives one (a token's
/// text for a token picker): the picker shows the labels, in a third array of the axis.
pub fn json_labelled(
    panels: &[Panel],
    shown: usize,
    label: &dyn Fn(&str, usize) -> Option<String>,
) -> String {
    let names: Vec<&str> = panels
        .first()
        .map(|p| p.key.iter().map(|(n, _)| *n).collect())
        .unwrap_or_default();
    let axes: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(a, name)| {
            let mut values: Vec<usize> = panels.iter().map(|p| p.key[a].1).collect();
            values.sort_unstable();
            values.dedup();
            let labels: Option<Vec<String>> = values
                .iter()
                .map(|&v| label(name, v).map(|l| json_string(&l)))
                .collect();
            let values: Vec<String> = values.iter().map(usize::to_string).collect();
            match labels {
                Some(labels) => {
                    format!("[\"{name}\",[{}],[{}]]", values.join(","), labels.join(","))
                }
                None => format!("[\"{name}\",[{}]]", values.join(",")),
            }
        })
        .collect();
    format!(
        "{{\"kind\":\"panels\",\"axes\":[{}],\"start\":\"{}\"}}",
        axes.join(","),
        panels
            .get(shown)
            .map_or(String::new(), |p| key_text(&p.key))
    )
}

#[cfg(test)]
mod tests {
    use super::{json, stack, Panel};
    use crate::svg::Element;

    fn panel(layer: usize, head: usize) -> Panel {
        Panel {
            key: vec![("layer", layer), ("head", head)],
            body: vec![Element::new("rect")],
        }
    }

    #[test]
    fn one_panel_shows_and_the_picker_lists_every_value() {
        let panels = vec![panel(0, 0), panel(0, 1), panel(1, 0), panel(1, 1)];
        assert_eq!(
            json(&panels, 1),
            "{\"kind\":\"panels\",\"axes\":[[\"layer\",[0,1]],[\"head\",[0,1]]],\"start\":\"0 1\"}"
        );
        let groups: Vec<String> = stack(panels, 1).iter().map(Element::render).collect();
        assert_eq!(groups[1], "<g data-tb-panel=\"0 1\">\n<rect/>\n</g>");
        assert!(groups[0].starts_with("<g data-tb-panel=\"0 0\" display=\"none\">"));
    }
}
