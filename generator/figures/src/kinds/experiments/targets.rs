//! The `target` option of the experiments' figures: which of the prompt's targets (as its
//! `ablate` or `attribute` lists them) a figure draws first.

use crate::error::FigureError;
use crate::prompt::Prompt;
use tracebook_trace::suggest::closest;
use tracebook_trace::NamedToken;

/// What recorded the targets, and the prompt option that lists them.
pub(super) const ABLATION: (&str, &str) = ("the ablation", "ablate");
pub(super) const ATTRIBUTION: (&str, &str) = ("the attribution", "attribute");

/// The index of the target `asked` among `targets` (the first when `None`), by its text or by
/// the rule it was found by (`target = "guess(1)"` for a target written so, which picks the
/// model's top guess on a reader's text too), or an error that
/// lists them and suggests the nearest; `experiment` names what the trace recorded ("the
/// ablation") and `option` the prompt option that lists the targets (`ablate`).
pub(super) fn index(
    prompt: &Prompt<'_>,
    targets: &[NamedToken],
    asked: Option<&str>,
    (experiment, option): (&str, &str),
) -> Result<usize, FigureError> {
    let Some(asked) = asked else { return Ok(0) };
    let is_it = |t: &NamedToken| t.text == asked || t.rule.as_deref() == Some(asked);
    if let Some(t) = targets.iter().position(is_it) {
        return Ok(t);
    }
    let texts: Vec<&str> = targets.iter().map(|t| t.text.as_str()).collect();
    let list: Vec<String> = texts.iter().map(|t| format!("{t:?}")).collect();
    let list = list.join(", ");
    let hint = match closest(asked, texts.iter().copied()) {
        Some(near) => format!("did you mean target = {near:?}? The targets are {list}"),
        None => format!(
            "the targets are {list}; to draw another, add it to the prompt's `{option}` \
             targets and run `tracebook trace --only {}`",
            prompt.name
        ),
    };
    Err(FigureError::at(
        "target",
        format!(
            "{experiment} of \"{}\" has no target {asked:?}",
            prompt.name
        ),
    )
    .with_hint(hint))
}
