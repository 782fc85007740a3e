//! Deterministic test corpus: varied strings that stress GPT-2's pre-tokenizer and BPE.

#![allow(dead_code)] // each test binary uses its own subset of these helpers

/// Test data drawn from the shared SplitMix64 stream.
pub struct Rng(tracebook_trace::SplitMix64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(tracebook_trace::SplitMix64::new(seed))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

const WORDS: &[&str] = &[
    "the",
    "The",
    "robots",
    "will",
    "bring",
    "animal",
    "didn",
    "cross",
    "street",
    "because",
    "tired",
    "unbelievably",
    "Hello",
    "WORLD",
    "transformer",
    "attention",
    "a",
    "I",
    "x",
];

const CONTRACTIONS: &[&str] = &[
    "'s",
    "'t",
    "'re",
    "'ve",
    "'m",
    "'ll",
    "'d",
    "'S",
    "'T",
    "'RE",
    "'VE",
    "'M",
    "'LL",
    "'D",
    "’s",
    "’re",
    "’ll",
    "’t",
    "it's",
    "It'S",
    "can't",
    "won’t",
    "y'all",
    "rock'n'roll",
    "'",
    "''",
    "'sup",
    "o'clock",
    "’",
];

const UNICODE_WORDS: &[&str] = &[
    "café",
    "naïve",
    "Ångström",
    "straße",
    "日本語",
    "中文字符",
    "こんにちは",
    "カタカナ",
    "한국어",
    "مرحبا",
    "بالعالم",
    "שלום",
    "עולם",
    "Привет",
    "Ελληνικά",
    "नमस्ते",
    "สวัสดี",
    "e\u{301}",
    "n\u{303}o",
    "Z\u{335}\u{321}a\u{336}l\u{338}g\u{334}o",
    "ﬁne",
    "Ⅻ",
    "²³",
    "\u{202E}reversed\u{202C}",
    "ß",
    "İstanbul",
    "ǅ",
    "\u{FEFF}bom",
];

const EMOJI: &[&str] = &[
    "😀",
    "🤖",
    "👨\u{200D}👩\u{200D}👧\u{200D}👦",
    "👩🏽\u{200D}💻",
    "🇯🇵",
    "🇺🇸🇬🇧",
    "🏳\u{FE0F}\u{200D}🌈",
    "❤\u{FE0F}",
    "✋🏿",
    "1\u{FE0F}\u{20E3}",
    "🧑\u{200D}🚀",
    "🫠",
    "☃",
    "🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}",
];

const CODE: &[&str] = &[
    "fn main() {",
    "}",
    "let x = vec![1, 2, 3];",
    "if (a && b) { return; }",
    "def f(x):\n    return x**2",
    "<div class=\"x\">",
    "</div>",
    "#include <stdio.h>",
    "x += 1;",
    "arr[i][j]",
    "foo_bar_baz",
    "camelCaseName",
    "SCREAMING_CASE",
    "// comment",
    "/* block */",
    "\t\treturn nil",
    "{\"key\": [1, 2.5, null]}",
    "    indented()",
    "a->b",
    "x!=y",
    "i++",
];

const URLS: &[&str] = &[
    "https://example.com/path?q=1&r=two#frag",
    "http://localhost:8080/",
    "www.rust-lang.org",
    "mailto:someone@example.org",
    "file:///tmp/x.txt",
    "ftp://ftp.example.net/pub/",
    "https://en.wikipedia.org/wiki/Byte_pair_encoding",
    "user@host.io",
];

const PUNCTUATION: &[&str] = &[
    "...",
    "!!!",
    "?!",
    "---",
    "—",
    "–",
    "…",
    "«»",
    "“quoted”",
    "‘single’",
    "***",
    "###",
    "@@",
    "$$$",
    "%",
    "^^",
    "~~~",
    "|||",
    "\\\\",
    "/",
    "()",
    "[]",
    "{}",
    "<>",
    "¿¡",
    ".",
    ",",
    ";:",
];

const NUMBERS: &[&str] = &[
    "3.14",
    "-0.001",
    "1e-9",
    "1,234,567",
    "2024-01-01",
    "12:30",
    "0x1F",
    "٣٤٥",
    "１２３",
    "½",
    "100%",
    "$5.99",
    "v1.2.3",
];

const SPACES: &[&str] = &[
    " ", "  ", "   ", "\t", "\n", "\r\n", "\n\n", " \n", "\n ", " \t ", "\t\n\t", "\u{A0}",
    "\u{3000}", "\u{2003}", "\u{200B}", "\u{2028}", "\u{85}", "\u{B}", "\u{C}", "",
];

/// Hand-picked strings at the edges of GPT-2's split rules.
const EDGE_CASES: &[&str] = &[
    "",
    " ",
    "  ",
    "\n",
    "\t",
    "\r\n",
    " \n ",
    "   hello",
    "hello   ",
    "a\n\n\nb",
    "hello\n",
    "  \t\n  x",
    "x \t \n",
    "it's",
    "IT'S",
    "they're",
    "we've",
    "I'm",
    "you'll",
    "he'd",
    "don't",
    "She said 'hi'",
    "it’s",
    "''s",
    "'s'",
    "x's",
    " 's",
    "'ll've",
    "123456789012345678901234567890",
    "3.14159",
    "-42",
    "The robots will bring",
    "The animal didn't cross the street because it was too tired",
    " tired",
    " unbelievably tired",
    "👨\u{200D}👩\u{200D}👧\u{200D}👦",
    "🇺🇸🇫🇷",
    "日本語のテキスト",
    "مرحبا بالعالم",
    "שלום עולם",
    "e\u{301}",
    "नमस्ते",
    "<|endoftext|>",
    "Hello<|endoftext|>World",
    " <|endoftext|> ",
    "a\u{200B}b",
    "a\u{A0}b",
    "\u{3000}",
    "\u{0}\u{1}\u{7F}",
    "\u{AD}",
    "!!!???...",
    "x  ",
    "x   y",
    " \u{A0} ",
    "\u{A0}\u{A0}x",
    "ŉ",
    "\u{10FFFF}",
    "\u{E000}",
    "\u{FFFD}",
];

fn fragment(rng: &mut Rng) -> String {
    let pools: &[&[&str]] = &[
        WORDS,
        WORDS,
        CONTRACTIONS,
        UNICODE_WORDS,
        EMOJI,
        CODE,
        URLS,
        PUNCTUATION,
        NUMBERS,
    ];
    match rng.below(pools.len() + 1) {
        i if i < pools.len() => rng.pick(pools[i]).to_owned(),
        _ => digit_run(rng),
    }
}

fn digit_run(rng: &mut Rng) -> String {
    let len = 1 + rng.below(40);
    (0..len)
        .map(|_| char::from(b'0' + rng.below(10) as u8))
        .collect()
}

/// A few fragments joined by assorted whitespace (or nothing).
fn fragment_string(rng: &mut Rng) -> String {
    let mut out = String::new();
    if rng.below(4) == 0 {
        out.push_str(rng.pick(SPACES));
    }
    for i in 0..1 + rng.below(8) {
        if i > 0 {
            out.push_str(rng.pick(SPACES));
        }
        out.push_str(&fragment(rng));
    }
    if rng.below(4) == 0 {
        out.push_str(rng.pick(SPACES));
    }
    out
}

/// Code point ranges to draw random characters from (no surrogates).
const CHAR_RANGES: &[(u32, u32)] = &[
    (0x20, 0x7E),       // ASCII printable
    (0x20, 0x7E),       // (twice: keep ASCII common)
    (0x09, 0x0D),       // ASCII whitespace
    (0x00, 0x1F),       // controls
    (0xA0, 0x17F),      // Latin-1 and Latin Extended-A
    (0x300, 0x36F),     // combining marks
    (0x370, 0x3FF),     // Greek
    (0x400, 0x4FF),     // Cyrillic
    (0x590, 0x5FF),     // Hebrew
    (0x600, 0x6FF),     // Arabic
    (0x900, 0x97F),     // Devanagari
    (0xE00, 0xE7F),     // Thai
    (0x2000, 0x206F),   // general punctuation, odd spaces, ZWJ
    (0x3040, 0x30FF),   // kana
    (0x4E00, 0x9FFF),   // CJK
    (0xAC00, 0xD7A3),   // Hangul
    (0xFF00, 0xFFEF),   // full-width forms
    (0x1F1E6, 0x1F1FF), // regional indicators
    (0x1F300, 0x1FAFF), // emoji
    (0xFE00, 0xFE0F),   // variation selectors
];

fn random_chars(rng: &mut Rng) -> String {
    let len = 1 + rng.below(30);
    (0..len)
        .filter_map(|_| {
            let (lo, hi) = rng.pick(CHAR_RANGES);
            char::from_u32(lo + rng.below((hi - lo + 1) as usize) as u32)
        })
        .collect()
}

/// Long inputs: tiktoken switches to another merge routine for pieces of 100+ bytes.
fn long_strings() -> Vec<String> {
    vec![
        "a".repeat(300),
        " ".repeat(200),
        format!("{}x", " ".repeat(150)),
        "1234567890".repeat(30),
        "🤖".repeat(60),
        "!?".repeat(80),
        "pneumonoultramicroscopicsilicovolcanoconiosis".repeat(4),
        "\n".repeat(120),
        "日本語".repeat(50),
    ]
}

/// At least 1,000 varied strings, the same on every run.
pub fn corpus() -> Vec<String> {
    let mut rng = Rng::new(0x7472_6163_6562_6F6F);
    let mut strings: Vec<String> = EDGE_CASES.iter().map(|s| (*s).to_owned()).collect();
    strings.extend(long_strings());
    strings.extend((0..700).map(|_| fragment_string(&mut rng)));
    strings.extend((0..500).map(|_| random_chars(&mut rng)));
    strings
}
