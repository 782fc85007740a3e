use super::*;

fn moved(from: &str, to: &str) -> Move {
    Move {
        from: from.into(),
        to: to.into(),
    }
}

fn rewritten(file: &str, text: &str, m: &Move) -> String {
    rewrite(file, text, m).unwrap().text
}

#[test]
fn links_to_the_article_follow_it_and_nothing_else_changes() {
    let m = moved("attention.md", "02-inside/attention.md");
    let text = "\u{feff}+++\r\ntitle = \"Q\"\r\n+++\r\n\r\nSee [attention](attention.md#scores \"attention.md\") and [the [nested] text](./attention.md), \
                not [tokens](tokens.md) nor [x](https://e.org/attention.md).\r\n\r\n[def]: attention.md\r\n\r\n`[code](attention.md)` \
                <a href=\"attention.html#x\">raw</a> {{ ref attention#scores }} {{ ref fig-heads }}\r\n";
    let out = rewritten("qkv.md", text, &m);
    assert_eq!(
        out,
        text.replace("(attention.md#", "(02-inside/attention.md#")
            .replace("(./attention.md)", "(02-inside/attention.md)")
            .replace("[def]: attention.md", "[def]: 02-inside/attention.md")
            .replace("\"attention.html#x\"", "\"02-inside/attention.html#x\"")
            .replace("ref attention#scores", "ref 02-inside/attention#scores")
    );
    assert_eq!(rewrite("qkv.md", text, &m).unwrap().changed, 5);
}

#[test]
fn the_moved_article_s_own_links_still_reach_their_targets() {
    let m = moved("01-basics/tokens.md", "tokens.md");
    let text = "+++\ntitle = \"T\"\n+++\n[e](embeddings.md) [p](../qkv.md#a) [self](tokens.md#top) [f](#here) \
                ![img](../images/x%20y.png) [part](../02-inside/) [m](mailto:a@b.c)\n";
    let out = rewritten("01-basics/tokens.md", text, &m);
    assert_eq!(
        out,
        "+++\ntitle = \"T\"\n+++\n[e](01-basics/embeddings.md) [p](qkv.md#a) [self](tokens.md#top) [f](#here) \
         ![img](images/x%20y.png) [part](02-inside/) [m](mailto:a@b.c)\n"
    );
}

#[test]
fn a_file_in_another_folder_links_up_and_back_down() {
    let m = moved("01-basics/tokens.md", "02-inside/words.md");
    let text = "+++\ntitle = \"A\"\n+++\n[t](../01-basics/tokens.md) [same](tokens.md)\n";
    assert_eq!(
        rewritten("02-inside/attention.md", text, &m),
        "+++\ntitle = \"A\"\n+++\n[t](words.md) [same](tokens.md)\n"
    );
    let sibling = "+++\ntitle = \"E\"\n+++\n[t](tokens.md)\n";
    assert_eq!(
        rewritten("01-basics/embeddings.md", sibling, &m),
        "+++\ntitle = \"E\"\n+++\n[t](../02-inside/words.md)\n"
    );
}

#[test]
fn code_and_math_are_left_alone() {
    let m = moved("a.md", "p/a.md");
    let text = "+++\ntitle = \"B\"\n+++\n```\n[a](a.md) {{ ref a#x }}\n```\n\n$[a](a.md)$\n";
    assert_eq!(rewrite("b.md", text, &m).unwrap().changed, 0);
}

#[test]
fn a_file_without_front_matter_is_an_error_naming_it() {
    let err = rewrite(
        "b.md",
        "no front matter [a](a.md)",
        &moved("a.md", "p/a.md"),
    )
    .unwrap_err();
    assert!(err.starts_with("b.md: "), "{err}");
}

#[test]
fn weights_are_replaced_in_the_top_table_or_added_with_the_file_s_line_end() {
    let text = "+++\r\ntitle = \"A\"\r\nweight = 3 # third\r\n[prompts]\r\nweight = \"x\"\r\n+++\r\nbody weight = 1\r\n";
    assert_eq!(
        set_weight("a.md", text, 40).unwrap(),
        text.replacen("weight = 3", "weight = 40", 1)
    );
    let none = "\u{feff}+++\r\ntitle = \"A\"\r\n[prompts]\r\nweight = \"x\"\r\n+++\r\n";
    assert_eq!(
        set_weight("a.md", none, 20).unwrap(),
        "\u{feff}+++\r\nweight = 20\r\ntitle = \"A\"\r\n[prompts]\r\nweight = \"x\"\r\n+++\r\n"
    );
    let facts = front_matter_of("a.md", none).unwrap();
    assert_eq!((facts.weight, facts.title.as_str()), (0, "A"));
    let odd = "+++\n\"weight\" = 3\n+++\n";
    assert!(set_weight("a.md", odd, 5)
        .unwrap_err()
        .contains("weight = N"));
}
