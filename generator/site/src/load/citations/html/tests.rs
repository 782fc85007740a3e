use super::*;
use crate::base::source::SourceFile;
use crate::load::citations::CitationSettings;

const BIB: &str = r#"
@article{vaswani2017,
  title = {Attention Is All You Need},
  author = {Vaswani, Ashish and Shazeer, Noam and Parmar, Niki and Uszkoreit, Jakob and Jones, Llion and Gomez, Aidan N. and Kaiser, {\L}ukasz and Polosukhin, Illia},
  journal = {Advances in Neural Information Processing Systems},
  volume = {30},
  year = {2017},
  eprint = {1706.03762},
  eprinttype = {arXiv},
  url = {https://arxiv.org/abs/1706.03762},
}
@techreport{radford2019,
  title = {Language Models are Unsupervised Multitask Learners},
  author = {Radford, Alec and Wu, Jeffrey and Child, Rewon and Luan, David and Amodei, Dario and Sutskever, Ilya},
  institution = {OpenAI},
  year = {2019},
  url = {https://cdn.openai.com/better-language-models/language_models_are_unsupervised_multitask_learners.pdf},
}
@online{nostalgebraist2020,
  title = {interpreting {GPT}: the logit lens},
  author = {nostalgebraist},
  publisher = {LessWrong},
  date = {2020-08-31},
  url = {https://www.lesswrong.com/posts/AcKRB8wDpdaN6v6ru/interpreting-gpt-the-logit-lens},
}
@online{karpathy2020,
  title = {minGPT},
  author = {Karpathy, Andrej},
  year = {2020},
  url = {https://github.com/karpathy/minGPT},
}
@article{ba2016,
  title = {Layer Normalization},
  author = {Ba, Jimmy Lei and Kiros, Jamie Ryan and Hinton, Geoffrey E.},
  journal = {arXiv preprint},
  year = {2016},
  eprint = {1607.06450},
  eprinttype = {arXiv},
  url = {https://arxiv.org/abs/1607.06450},
}
"#;

fn bibliography(style: &str, language: &str) -> Bibliography {
    let file = SourceFile::from_text("references.bib", BIB);
    let library =
        super::super::bibliography::parse(&file, super::super::settings::BibFormat::BibLaTeX)
            .unwrap();
    let settings = CitationSettings {
        style: hayagriva::archive::ArchivedStyle::by_name(style).unwrap(),
        ..CitationSettings::default()
    };
    Bibliography::new("references.bib", library, &settings, language)
}

fn keys(keys: &[&str]) -> Vec<String> {
    keys.iter().map(|k| k.to_string()).collect()
}

#[test]
fn author_year_citations_link_each_work_to_its_entry() {
    let page = bibliography("apa", "en").format_page(&[
        keys(&["vaswani2017"]),
        keys(&["ba2016", "nostalgebraist2020"]),
    ]);
    assert_eq!(page.cited[0].text, "(Vaswani et al., 2017)");
    assert_eq!(
        page.cited[0].html,
        "<span class=\"tb-cite\">(<a href=\"#ref-vaswani2017\">Vaswani et al., 2017</a>)</span>"
    );
    assert_eq!(
        page.cited[1].text,
        "(Ba et al., 2016; nostalgebraist, 2020)"
    );
    assert!(page.cited[1]
        .html
        .contains("<a href=\"#ref-nostalgebraist2020\">nostalgebraist, 2020</a>"));
}

#[test]
fn the_list_holds_only_cited_works_in_the_styles_order_escaped() {
    let page = bibliography("apa", "en")
        .format_page(&[keys(&["vaswani2017"]), keys(&["nostalgebraist2020"])]);
    let ids: Vec<&str> = page
        .items
        .lines()
        .map(|l| &l[8..l[8..].find('"').unwrap() + 8])
        .collect();
    assert_eq!(ids, ["ref-nostalgebraist2020", "ref-vaswani2017"]);
    assert!(!page.items.contains("ref-ba2016"));
    assert!(page.items.contains("Jones, L., Gomez, A. N., Kaiser, Ł., &amp; Polosukhin, I. (2017). Attention Is All You Need. <i>Advances in Neural Information Processing Systems</i>, <i>30</i>. <a href=\"https://arxiv.org/abs/1706.03762\">"), "{}", page.items);
    assert!(
        page.items
            .contains("(2020, August 31). <i>interpreting GPT: the logit lens</i>. LessWrong."),
        "{}",
        page.items
    );
}

#[test]
fn an_online_work_of_a_year_alone_and_a_reports_institution_read_as_apa_asks() {
    let page =
        bibliography("apa", "en").format_page(&[keys(&["karpathy2020"]), keys(&["radford2019"])]);
    assert!(
        page.items.contains("Karpathy, A. (2020). <i>minGPT</i>."),
        "no comma left before the bracket: {}",
        page.items
    );
    assert!(
        page.items
            .contains("Multitask Learners</i> [Technical report]. OpenAI. <a"),
        "the institution publishes the report: {}",
        page.items
    );
}

#[test]
fn numbered_styles_number_in_citation_order_and_label_the_entries() {
    let page = bibliography("ieee", "en")
        .format_page(&[keys(&["ba2016"]), keys(&["vaswani2017", "ba2016"])]);
    assert_eq!(page.cited[0].text, "[1]");
    assert_eq!(page.cited[1].text, "[1], [2]");
    assert!(
        page.items.starts_with(
            "<li id=\"ref-ba2016\"><span class=\"tb-reference-label\">[1]</span> J. L. Ba,"
        ),
        "{}",
        page.items
    );
}

#[test]
fn the_section_has_a_heading_with_an_anchor() {
    let html = section("references", "Literatur & mehr", "<li>x</li>\n");
    assert!(html.starts_with("<section class=\"tb-references\" aria-labelledby=\"references\">\n<h2 id=\"references\">Literatur &amp; mehr<a class=\"tb-anchor\" href=\"#references\""), "{html}");
    assert!(html.ends_with("<ul class=\"tb-references-list\">\n<li>x</li>\n</ul>\n</section>\n"));
}
