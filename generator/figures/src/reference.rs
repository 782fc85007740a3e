//! The reference of figure kinds authors read in the terminal (`tracebook figures`): read from
//! the table of `generator/figures/README.md`, compiled in, so the command and the README are
//! one text and cannot drift (and `readme_tests` checks that table against the kinds' options).

const README: &str = include_str!("../README.md");

/// One kind's row of the README table, with markdown's backticks removed.
#[derive(Debug, Clone, PartialEq)]
pub struct KindReference {
    pub kind: String,
    /// The options and their defaults, as the README writes them (`dims [32, ≤ 64], spread`).
    pub options: String,
    /// What the kind draws.
    pub draws: String,
}

/// What every kind accepts, and how `layer`, `head` and `token` count.
pub const SHARED_OPTIONS: &str = "Every kind takes `prompt` (required: a prompt's name) and \
`caption`. `layer`, `head` and `token` count from 0; a negative `token` counts from the end \
(-1 is the last token), and `token` may be a role: `token = 'pos(\" it\")'` or `token = \"last() \
- 1\"` picks by the same rule in a reader's own text. Defaults are in brackets. Kinds that colour by value also take `scale` \
= \"NAME\": the figures of a page with the same name share one colour scale.";

/// Every kind's reference, in the README's order (which groups kinds by the article they serve).
pub fn kind_references() -> Vec<KindReference> {
    README
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line
                .strip_prefix("| `")?
                .split(" | ")
                .map(str::trim)
                .collect();
            let [kind, options, draws] = cells[..] else {
                return None;
            };
            let kind = kind.strip_suffix('`')?;
            crate::kinds().contains(&kind).then(|| KindReference {
                kind: kind.to_string(),
                options: plain(options),
                draws: plain(draws.trim_end_matches('|').trim()),
            })
        })
        .collect()
}

/// The reference of `kind`, if it is a kind.
pub fn kind_reference(kind: &str) -> Option<KindReference> {
    kind_references().into_iter().find(|r| r.kind == kind)
}

fn plain(cell: &str) -> String {
    cell.replace('`', "").replace("\\|", "|")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_a_reference_with_what_it_draws() {
        let refs = kind_references();
        assert_eq!(refs.len(), crate::kinds().len());
        for r in &refs {
            assert!(!r.draws.is_empty() && !r.draws.contains('`'), "{r:?}");
        }
        let compare = kind_reference("compare").unwrap();
        assert!(compare.options.contains("other (required"), "{compare:?}");
        assert!(kind_reference("nope").is_none());
    }
}
