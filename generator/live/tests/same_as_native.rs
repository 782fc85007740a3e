//! A live session draws what `tracebook build` draws from a trace `tracebook trace` wrote: the
//! same model (here from the folder's bytes), the same trace, the same figures, byte for byte.

use std::path::Path;
use tracebook_live::{LiveError, Session};
use tracebook_model::testmodel::{write_test_model, TestModelSpec};
use tracebook_model::{source::from_dir, trace, Model, ModelBytes, TraceRequest};
use tracebook_trace::{Precision, PromptOptions, PromptSpec, Trace, TraceOptions};

const ID: &str = "tiny";
const NAME: &str = "mine";

/// The tiny test model `tracebook dev test-model` writes.
fn tiny() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_test_model(dir.path(), &TestModelSpec::tiny()).unwrap();
    dir
}

fn options() -> TraceOptions {
    TraceOptions {
        precision: Precision::F32,
        top_k: 20,
    }
}

fn prompt(text: &str, generate: usize) -> PromptSpec {
    PromptSpec {
        text: text.to_string(),
        options: PromptOptions {
            generate,
            ..PromptOptions::default()
        },
        model: None,
        model_name: None,
    }
}

/// What `tracebook trace` does with the folder: load it, trace, write the file; then what
/// `tracebook build` does: read the file.
fn native(dir: &Path, prompt: &PromptSpec) -> Trace {
    let model = Model::load(from_dir(ID, dir).unwrap()).unwrap();
    let request = TraceRequest {
        name: NAME,
        prompt,
        options: options(),
    };
    let file = dir.join("trace.json");
    trace(&model, &request).unwrap().write(&file).unwrap();
    Trace::read(&file).unwrap()
}

/// The session the browser makes from the same folder's bytes.
fn live(dir: &Path) -> Session {
    let config = std::fs::read_to_string(dir.join("config.json")).unwrap();
    let weights = std::fs::read(dir.join("model.safetensors")).unwrap();
    let tokenizer = std::fs::read_to_string(dir.join("tokenizer.json")).unwrap();
    let bytes = ModelBytes {
        id: ID,
        config_json: &config,
        weights: &weights,
        tokenizer_json: Some(&tokenizer),
        training: None,
    };
    Session::from_bytes(&bytes, options()).unwrap()
}

/// The one trace figures see, under the prompt's name, as the site hands traces over.
struct One<'t>(&'t Trace);

impl tracebook_figures::Traces for One<'_> {
    fn get(&self, prompt: &str) -> Option<&Trace> {
        (prompt == NAME).then_some(self.0)
    }
    fn names(&self) -> Vec<String> {
        vec![NAME.to_string()]
    }
}

#[test]
fn the_live_trace_is_the_trace_file_tracebook_trace_writes() {
    let dir = tiny();
    let spec = prompt("The robots will bring us", 3);
    let expected = native(dir.path(), &spec);
    let mut session = live(dir.path());
    let traced = session.trace(NAME, &spec).unwrap();
    assert_eq!(traced.to_json(), expected.to_json());
}

#[test]
fn every_figure_kind_is_drawn_byte_for_byte_as_the_build_draws_it() {
    let dir = tiny();
    let mut spec = prompt(
        "When Mary and John went to the store, John gave a drink to",
        4,
    );
    // With the experiments, so their figures are compared too.
    spec.options.ablate = Some(tracebook_trace::AblationSpec {
        targets: vec![" Mary".into(), " John".into()],
        mode: tracebook_trace::AblationMode::Mean,
    });
    spec.options.patch = Some(tracebook_trace::PatchSpec {
        corrupted: "When Mary and John went to the store, Mary gave a drink to".into(),
        answer: " Mary".into(),
        wrong: " John".into(),
    });
    let expected = native(dir.path(), &spec);
    let mut session = live(dir.path());
    session.trace(NAME, &spec).unwrap();
    let mut drawn = Vec::new();
    for kind in tracebook_figures::kinds() {
        // Start from the prompt alone and add each option the kind says it needs.
        let mut body = format!("prompt = \"{NAME}\"\ncaption = \"Yours\"\n");
        loop {
            let table: toml::Table = toml::from_str(&body).unwrap();
            let build = tracebook_figures::render(kind, &table, &One(&expected));
            match (build, session.figure(kind, &body)) {
                (Ok(build), Ok(live)) => {
                    assert_eq!(live, build, "figure {kind} with {body}");
                    drawn.push(*kind);
                }
                (Err(build), Err(LiveError::Figure(live))) => {
                    assert_eq!(live, build, "{kind} with {body}");
                    let needed = build.key.filter(|_| build.message.contains("needs"));
                    if let Some(key) = needed.filter(|k| !body.contains(&format!("{k} ="))) {
                        body.push_str(&format!("{key} = 0\n"));
                        continue;
                    }
                }
                (build, live) => panic!("{kind}: the build gave {build:?}, live {live:?}"),
            }
            break;
        }
    }
    eprintln!("drawn alike: {drawn:?}");
    for kind in [
        "attention",
        "next-token",
        "tokens",
        "residual",
        "generation",
        "ablation",
        "patching",
    ] {
        assert!(
            drawn.contains(&kind),
            "{kind} was not drawn; drawn: {drawn:?}"
        );
    }
}

#[test]
fn a_figure_block_id_is_set_aside_as_the_site_sets_it_aside() {
    let dir = tiny();
    let mut session = live(dir.path());
    session.trace(NAME, &prompt("Hello there", 0)).unwrap();
    let with_id = format!("id = \"fig-one\"\nprompt = \"{NAME}\"\nlayer = 1\nhead = 2\n");
    let without = format!("prompt = \"{NAME}\"\nlayer = 1\nhead = 2\n");
    assert_eq!(
        session.figure("attention", &with_id).unwrap(),
        session.figure("attention", &without).unwrap()
    );
}

#[test]
fn bad_prompts_and_options_get_a_message_not_a_figure() {
    let dir = tiny();
    let mut session = live(dir.path());
    let error = |session: &mut Session, spec: PromptSpec| {
        session
            .trace(NAME, &spec)
            .map(|_| ())
            .unwrap_err()
            .to_string()
    };
    // Said to the reader who typed the text: no prompt names, no `generate` option.
    for blank in ["", " \n\t "] {
        let message = error(&mut session, prompt(blank, 0));
        assert_eq!(
            message,
            "Type a few words in the box first, for example \"The robots will bring\"."
        );
    }
    let long = "word ".repeat(1100);
    let message = error(&mut session, prompt(&long, 0));
    assert_eq!(message, "Your text is 1101 tokens long, and this model reads at most 1024 tokens here: try a shorter text.");
    let message = error(&mut session, prompt(&"word ".repeat(1020), 8));
    assert!(
        message.contains("at most 1016 tokens here (the figures continue your text by 8 more)"),
        "{message}"
    );
    assert!(
        !message.contains("prompt") && !message.contains("generate"),
        "{message}"
    );
    let mut hot = prompt("Hi", 1);
    hot.options.temperature = Some(-1.0);
    assert!(error(&mut session, hot).contains("temperature"));
    assert!(session.trace_of(NAME).is_none());

    session.trace(NAME, &prompt("Hi", 0)).unwrap();
    let toml_error = session.figure("attention", "prompt = ").unwrap_err();
    assert!(
        toml_error.to_string().contains("not valid TOML"),
        "{toml_error}"
    );
    let unknown = session
        .figure("attention", "prompt = \"theirs\"")
        .unwrap_err()
        .to_string();
    assert!(unknown.contains("theirs"), "{unknown}");
}

#[test]
fn tokens_are_the_native_tokenizer_s() {
    let dir = tiny();
    let session = live(dir.path());
    let native = Model::load(from_dir(ID, dir.path()).unwrap())
        .unwrap()
        .tokenizer;
    for text in [
        "The robots will bring",
        " leading space, trailing  ",
        "émoji 🤖 and 中文 and <|endoftext|>",
        "numbers 1234567 and\nnew lines",
    ] {
        for special in [false, true] {
            assert_eq!(
                session.tokenize(text, special).unwrap(),
                native.encode_as(text, special).unwrap(),
                "{text:?}"
            );
        }
    }
}

#[test]
fn a_bare_traced_forward_records_what_the_tracer_records() {
    let dir = tiny();
    let session = live(dir.path());
    let model = Model::load(from_dir(ID, dir.path()).unwrap()).unwrap();
    let mut recorder = tracebook_model::TensorRecorder::default();
    model
        .net
        .forward(&[464, 14193, 481], &mut recorder)
        .unwrap();
    assert_eq!(
        session.forward(&[464, 14193, 481]).unwrap(),
        recorder.tensors.len()
    );
    assert!(session.forward(&[]).is_err());
    assert!(session.forward(&[50257]).is_err());
    assert!(session.forward(&[1; 1025]).is_err());
}

#[test]
fn a_word_the_readers_prompt_lacks_gives_way_to_a_word_it_has() {
    let dir = tiny();
    let mut session = live(dir.path());
    session
        .trace(NAME, &prompt("The robots will bring unbelievable boxes", 0))
        .unwrap();
    let figure = |word: &str| tracebook_figures::PageFigure {
        id: "figure-1".into(),
        kind: "bpe".into(),
        options: format!("prompt = \"{NAME}\"\nword = \"{word}\"\n"),
        prompt: NAME.into(),
        scale: None,
        picks: Vec::new(),
        own: None,
    };
    // The author's word, where the reader's prompt has it, is kept.
    let drawn = session.draw_page(&[figure("robots")]).remove(0).unwrap();
    assert!(drawn.figure.alt.contains("robots"), "{}", drawn.figure.alt);
    assert!(drawn.set_aside.is_empty());
    // A word it lacks: the figure's own choice, the word cut into the most tokens.
    let drawn = session
        .draw_page(&[figure("photosynthesis")])
        .remove(0)
        .unwrap();
    assert!(
        !drawn.figure.alt.contains("photosynthesis"),
        "{}",
        drawn.figure.alt
    );
    assert!(
        drawn.figure.alt.contains("unbelievable"),
        "{}",
        drawn.figure.alt
    );
    assert_eq!(drawn.set_aside, ["word"]);
}

#[test]
fn values_that_do_not_fit_a_long_sentence_are_set_aside_not_an_error() {
    let dir = tiny();
    let mut session = live(dir.path());
    let long = "The robots will bring us tea and cake and then they will sing a song about the \
                sea and the sky and the long road home";
    session.trace(NAME, &prompt(long, 0)).unwrap();
    let figure = tracebook_figures::PageFigure {
        id: "figure-1".into(),
        kind: "attention".into(),
        options: format!("prompt = \"{NAME}\"\nlayer = 0\nhead = 1\nvalues = true\n"),
        prompt: NAME.into(),
        scale: None,
        picks: Vec::new(),
        own: None,
    };
    // The author's options on the author's short prompt print the values; on this sentence
    // they would not fit, as the figure says when an author asks for them.
    let options: toml::Table = toml::from_str(&figure.options).unwrap();
    let refused = tracebook_figures::render("attention", &options, &session).unwrap_err();
    assert_eq!(refused.key.as_deref(), Some("values"));
    let drawn = session.draw_page(&[figure]).remove(0).unwrap();
    assert_eq!(drawn.set_aside, ["values"]);
    assert!(drawn.figure.svg.contains("<svg"));
}

#[test]
fn a_role_the_readers_text_cannot_answer_is_set_aside_and_said() {
    let dir = tiny();
    let mut session = live(dir.path());
    session
        .trace(NAME, &prompt("The robots will bring us tea", 0))
        .unwrap();
    let figure = |role: &str| tracebook_figures::PageFigure {
        id: "figure-1".into(),
        kind: "layernorm".into(),
        options: format!("prompt = \"{NAME}\"\nlayer = 0\ntoken = '{role}'\n"),
        prompt: NAME.into(),
        scale: None,
        picks: vec![format!("token: {role}")],
        own: None,
    };
    // Answered: " robots" is token 1, and nothing is set aside.
    let drawn = session
        .draw_page(&[figure("pos(\" robots\")")])
        .remove(0)
        .unwrap();
    assert!(drawn.set_aside.is_empty());
    assert!(
        drawn.figure.alt.contains("(token 1)"),
        "{}",
        drawn.figure.alt
    );
    // Not answered: the kind's default (the last token), and the page is told so.
    let drawn = session
        .draw_page(&[figure("pos(\" cats\")")])
        .remove(0)
        .unwrap();
    assert_eq!(drawn.set_aside, ["token"]);
    assert!(drawn.figure.alt.contains("tea"), "{}", drawn.figure.alt);
}

/// An author's kind (the example site's `figures/neuron.svg`) is drawn by the session from the
/// template and declaration the page hands it, exactly as the build draws it from the files.
#[test]
fn an_author_s_own_kind_is_drawn_from_the_template_the_page_hands_over() {
    let dir = tiny();
    let mut session = live(dir.path());
    session
        .trace(NAME, &prompt("The robots will bring", 0))
        .unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let read = |file: &str| std::fs::read_to_string(root.join(file)).unwrap();
    let source = tracebook_figures::OwnSource {
        path: "figures/neuron.svg".into(),
        template: read("figures/neuron.svg"),
        declaration: Some(("figures/neuron.toml".into(), read("figures/neuron.toml"))),
    };
    let options =
        format!("prompt = \"{NAME}\"\nlayer = 1\nneuron = 3\ncaption = \"One neuron.\"\n");
    let figure = tracebook_figures::PageFigure {
        id: "figure-1".into(),
        kind: "neuron".into(),
        options: options.clone(),
        prompt: NAME.into(),
        scale: None,
        picks: Vec::new(),
        own: Some(source.clone()),
    };
    let drawn = session.draw_page(&[figure]).remove(0).unwrap();
    assert!(
        drawn.figure.svg.contains("tbf-own-neuron"),
        "{}",
        drawn.figure.svg
    );
    let built = tracebook_figures::own::OwnKind::from_source("neuron", &source)
        .unwrap()
        .render(&options.parse().unwrap(), &session)
        .unwrap();
    assert_eq!(drawn.figure.svg, built.svg);
    // A declared option out of range is the build's error, not a panic.
    let wrong = tracebook_figures::PageFigure {
        id: "figure-2".into(),
        kind: "neuron".into(),
        options: format!("prompt = \"{NAME}\"\nlayer = 1\nneuron = -1\n"),
        prompt: NAME.into(),
        scale: None,
        picks: Vec::new(),
        own: Some(source),
    };
    assert!(session.draw_page(&[wrong]).remove(0).is_err());
}

/// A claim a reader's text cannot answer says why, with the token as the text has it (a
/// control character included), from the evaluator's own cause rather than its wording.
#[test]
fn a_claim_the_readers_text_cannot_answer_names_its_token_or_its_length() {
    let dir = tiny();
    let mut session = live(dir.path());
    let claims = [
        "guess(1) == id(earlier(last()) + 1)".to_string(),
        "blocks.0.attn.pattern[0, last(), last() - 30] > 0".to_string(),
    ];
    for text in ["one two\tthree\u{7}", "a quiet word!"] {
        let trace = session.trace(NAME, &prompt(text, 0)).unwrap();
        let last = trace.meta.tokens.last().unwrap().text.clone();
        let checks = session.check_claims(NAME, &claims);
        assert_eq!(checks[0].live, "author");
        assert_eq!(checks[0].why, Some("repeat"), "{}", checks[0].detail);
        assert_eq!(checks[0].token.as_deref(), Some(last.as_str()), "{text:?}");
        assert_eq!(checks[1].why, Some("short"), "{}", checks[1].detail);
    }
}
