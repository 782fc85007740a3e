//! Shared colour scales of a page: the figures that name one `scale` are drawn over the
//! union of their values' domains, so that a colour means the same number in each. This
//! pass reads every figure of the page before any is drawn; a figure that cannot be read
//! or drawn is left to the drawing pass, which reports it once.

use super::{key_span, read, Block};
use crate::base::problem::Problem;
use crate::resolve::scope::PromptScopeView;
use std::collections::BTreeMap;
use std::ops::Range;
use tracebook_figures::{Domain, SharedScale};
use tracebook_trace::suggest;

/// The page's shared scales, by name.
#[derive(Debug, Default)]
pub struct Shared(BTreeMap<String, SharedScale>);

impl Shared {
    /// The scale the figure with `options` shares, if it names one that holds.
    pub fn of(&self, options: &toml::Table) -> Option<&SharedScale> {
        match options.get("scale") {
            Some(toml::Value::String(name)) => self.0.get(name),
            _ => None,
        }
    }
}

/// One figure that names a scale: where the name is written, and its values' domain when
/// the figure could be drawn.
struct Member {
    span: Range<usize>,
    domain: Option<Domain>,
}

/// Reads the figures of a page, unions the domains of those that name the same scale, and
/// reports a name given by one figure only, or shared by figures that colour different
/// kinds of values.
pub fn shared<'b>(
    blocks: impl Iterator<Item = &'b Block>,
    scope: &PromptScopeView<'_>,
    problems: &mut Vec<Problem>,
) -> Shared {
    let mut by_name: BTreeMap<String, Vec<Member>> = BTreeMap::new();
    for block in blocks {
        let own = scope.own_kind_names();
        let Ok(mut read) = read(block, &own) else {
            continue;
        };
        let Some(toml::Value::String(name)) = read.options.get("scale").cloned() else {
            continue;
        };
        // A role its trace cannot answer is reported where the figure is drawn.
        if super::picks_by_role(block, &mut read.options, scope).is_err() {
            continue;
        }
        // `Ok(None)`: the kind colours nothing by value, which drawing reports.
        let domain = match tracebook_figures::domain(read.kind, &read.options, scope) {
            Ok(Some(domain)) => Some(domain),
            Ok(None) => continue,
            Err(_) => None,
        };
        by_name.entry(name.clone()).or_default().push(Member {
            span: key_span(block, "scale"),
            domain,
        });
    }
    let names: Vec<&str> = by_name.keys().map(String::as_str).collect();
    let mut shared = BTreeMap::new();
    for (name, members) in &by_name {
        if let [alone] = &members[..] {
            problems.push(alone_problem(name, alone, &names));
            continue;
        }
        match union(name, members) {
            Ok(Some(domain)) => {
                let scale = SharedScale {
                    name: name.clone(),
                    domain,
                    figures: members.len(),
                };
                shared.insert(name.clone(), scale);
            }
            Ok(None) => {}
            Err(problem) => problems.push(problem),
        }
    }
    Shared(shared)
}

/// The union of the members' domains (`None` if none could be drawn), or a problem at the
/// first member whose values are of another kind than those before it.
fn union(name: &str, members: &[Member]) -> Result<Option<Domain>, Problem> {
    let mut union: Option<Domain> = None;
    for member in members {
        let Some(domain) = member.domain else {
            continue;
        };
        union = match union {
            None => Some(domain),
            Some(so_far) => Some(so_far.union(domain).ok_or_else(|| {
                Problem::new(
                    member.span.clone(),
                    format!(
                        "figures sharing scale \"{name}\" colour different things: {} here, {} before",
                        domain.what(),
                        so_far.what()
                    ),
                )
                .with_hint("give this figure a scale name of its own, or remove `scale`")
            })?),
        };
    }
    Ok(union)
}

fn alone_problem(name: &str, alone: &Member, names: &[&str]) -> Problem {
    let others = names.iter().copied().filter(|n| *n != name);
    let hint = suggest::did_you_mean(name, others).unwrap_or_else(|| {
        "a shared scale needs two figures or more on the page with the same `scale`; \
         remove `scale` to give this figure its own"
            .to_string()
    });
    Problem::new(
        alone.span.clone(),
        format!("scale \"{name}\" is named by one figure only on this page"),
    )
    .with_hint(hint)
}
