"""Marian's tokenizer as the Hugging Face hub ships it (source.spm, target.spm, vocab.json), made
here to OPUS-MT's recipe, and what transformers' MarianTokenizer makes of hard strings.

No opus-mt checkpoint can be downloaded where the fixtures are made, so this script makes the
files the way Helsinki-NLP's OPUS-MT-train does (lib/sentencepiece.mk):

- source.spm and target.spm: `spm_train` with its defaults (a unigram model, the nmt_nfkc
  normalizer, dummy prefix, extra whitespace removed), `--character_coverage=1.0` (fewer than
  1,000 distinct characters) and `--hard_vocab_limit=false`, one model per language, trained on
  the English msgids (source) and the French msgstrs (target) of Debian's gettext catalogs
  (CATALOGS below, from /usr/share/locale/fr/LC_MESSAGES);
- vocab.json: Marian's joint vocabulary, as `spm_encode | marian-vocab` builds it from both
  encoded sides, with the target-language label `>>fra<<` in front of every source line (as
  OPUS-MT's multilingual-target models are trained): `</s>` = 0, `<unk>` = 1, then every piece
  seen by descending count (ties by piece), then `<pad>` added last as transformers'
  convert_marian_to_pytorch.py does;
- tokenizer_config.json naming MarianTokenizer and its special tokens.

Then MarianTokenizer, loaded from that folder, encodes each string of SOURCE (as source text)
and TARGET (as `text_target`), and expected.json records: `ids` (eos appended; special-token
spellings read as text, `split_special_tokens=True`, the mode tracebook reads prompts in),
`default_ids` where MarianTokenizer's default differs, the `pieces`, byte `spans` from
sentencepiece's own offsets (the language-code token spans its spelling, `</s>` is empty at the
end), and `decoded` / `decoded_skip` (decode without and with `skip_special_tokens`). With one
vocabulary for both sides MarianTokenizer decodes with source.spm unless told
`use_source_tokenizer=False`; where target.spm reads otherwise, the entry keeps that text too
(`decoded_target_spm`, `decoded_skip_target_spm`). Running the script twice gives the same files
byte for byte.

Usage (in a venv outside the repo: pip install transformers sentencepiece protobuf):
    python tests/reference/make_marian_tokenizer_fixtures.py tests/fixtures/tokenizers/marian-recipe
"""

import collections
import gettext
import io
import json
import os
import sys

import sentencepiece as spm
import transformers
from transformers import MarianTokenizer

LOCALE = "/usr/share/locale/fr/LC_MESSAGES"
CATALOGS = ["apt", "bash", "coreutils", "diffutils", "dpkg", "findutils", "gettext-tools", "git",
            "glib20", "grep", "libc", "make", "sed", "tar", "wget"]
VOCAB_SIZE = 2000
LABEL = ">>fra<<"

# Hard for any tokenizer, and for sentencepiece's normalizer in particular.
COMMON = [
    "",
    " ",
    "   \t\n  ",
    "Hello world",
    "  leading spaces",
    "trailing spaces   ",
    "many     spaces   between    words",
    "tabs\tand\nnewlines\r\nhere",
    "line one\n\nline two",
    "1234567890",
    "3.14159 and 2,718 and 1/2",
    "Version 2.39.90 released on 2023-01-15",
    "Price: $1,299.99 (€1.199,00)",
    "Hello, world! How are you? I'm fine; thanks...",
    "\"quoted\" 'single' «guillemets» „low“ ‘curly’",
    "café",
    "cafe\u0301",
    "A\u030angstro\u0308m",
    "e\u0301\u0302 two marks",
    "Ⅻ ① ｆｕｌｌ－ｗｉｄｔｈ ＡＢＣ １２３",
    "Ａ！？ fullwidth punctuation",
    "ﬁle ﬂow ﬀ ligatures",
    "ﬁ\u0301",
    "x² + y³ = z½",
    "ǅ ǈ ǋ digraphs",
    "non\u00a0breaking\u2009thin\u3000ideographic",
    "zero\u200bwidth\u200djoiner\u200c\ufeffbom",
    "soft\u00adhyphen",
    "\u0007bell\u001bescape\u007fdelete",
    "mixed\u2028line\u2029separators",
    "👍 thumbs up",
    "family 👨\u200d👩\u200d👧\u200d👦 emoji",
    "skin tone 👋🏽 and flag 🇫🇷",
    "🤖🤖🤖",
    "日本語のテキスト",
    "中文文本测试",
    "한국어 텍스트",
    "עברית מימין לשמאל",
    "العربية من اليمين",
    "Ελληνικά κείμενα",
    "Русский текст",
    LABEL + " Hello world",
    LABEL + "Hello",
    LABEL,
    ">>deu<< Hello",
    "Hello " + LABEL + " world",
    ">> a << b",
    ">> no code here",
    "</s> <unk> <pad> <s>",
    "a </s> in the middle",
    "\u2581 literal lower block \u2581\u2581",
    "supercalifragilisticexpialidocious",
    "Donaudampfschifffahrtsgesellschaftskapitän",
    "a" * 80,
    "https://example.com/path?query=1&x=y#frag",
    "user@example.org",
    "C:\\Program Files\\app.exe --flag=value",
]

SOURCE = COMMON + [
    "%s: cannot open '%s': No such file or directory\n",
    "don't can't won't shouldn't",
    "Usage: grep [OPTION]... PATTERNS [FILE]...",
    "ÉCOLE ÉLÈVE ÇA",
]

TARGET = COMMON + [
    "L'élève a reçu « ça » à l'école.",
    "Impossible d'ouvrir « %s » : %s",
    "Œuvre, cœur, sœur et œil",
    "Êtes-vous sûr ? Oui !",
    "naïve Noël, où ça ?",
]


def catalog_pairs():
    """(English msgid, French msgstr) of every translated message, catalogs in CATALOGS order."""
    pairs, projects = [], []
    for name in CATALOGS:
        with open(os.path.join(LOCALE, name + ".mo"), "rb") as f:
            catalog = gettext.GNUTranslations(f)._catalog
        header = catalog.get("", "")
        project = [ln.split(":", 1)[1].strip() for ln in header.split("\n")
                   if ln.startswith("Project-Id-Version:")]
        projects.append((name, project[0] if project else ""))
        for msgid in sorted(k for k in catalog if isinstance(k, str) and k):
            pairs.append((msgid, catalog[msgid]))
    return pairs, projects


def lines(texts):
    """Non-empty lines, as `grep .` gives them to spm_train."""
    return [ln for text in texts for ln in text.split("\n") if ln.strip()]


def train(sentences):
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(sentences), model_writer=model, model_type="unigram",
        vocab_size=VOCAB_SIZE, character_coverage=1.0, hard_vocab_limit=False,
        num_threads=1, minloglevel=2)
    return model.getvalue()


def marian_vocab(source_model, target_model, source_lines, target_lines):
    """marian-vocab over both encoded sides: `</s>` 0, `<unk>` 1, then by count, then `<pad>`."""
    counts = collections.Counter()
    for processor, sentences, label in ((source_model, source_lines, True),
                                        (target_model, target_lines, False)):
        for line in sentences:
            pieces = processor.encode(line, out_type=str)
            counts.update([LABEL] + pieces if label else pieces)
    vocab = {"</s>": 0, "<unk>": 1}
    for piece, _ in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        vocab.setdefault(piece, len(vocab))
    vocab["<pad>"] = max(vocab.values()) + 1
    return vocab


def processor(blob):
    sp = spm.SentencePieceProcessor()
    sp.LoadFromSerializedProto(blob)
    return sp


def write_folder(out):
    pairs, projects = catalog_pairs()
    source_lines = lines(msgid for msgid, _ in pairs)
    target_lines = lines(msgstr for _, msgstr in pairs)
    source_blob, target_blob = train(source_lines), train(target_lines)
    vocab = marian_vocab(processor(source_blob), processor(target_blob), source_lines,
                         target_lines)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "source.spm"), "wb") as f:
        f.write(source_blob)
    with open(os.path.join(out, "target.spm"), "wb") as f:
        f.write(target_blob)
    with open(os.path.join(out, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, indent=2)
    config = {"source_lang": "en", "target_lang": "fr", "eos_token": "</s>",
              "unk_token": "<unk>", "pad_token": "<pad>", "model_max_length": 512,
              "separate_vocabs": False, "tokenizer_class": "MarianTokenizer"}
    with open(os.path.join(out, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    return projects, len(source_lines), len(target_lines), len(vocab)


def spans(sp, text, pieces):
    """Byte spans of MarianTokenizer's tokens: the language code, then sentencepiece's pieces."""
    code = []
    if text.startswith(">>") and text.find("<<") != -1:
        end = text.find("<<") + 2
        code, text = [(0, len(text[:end].encode()))], text[end:]
    shift = code[0][1] if code else 0
    proto = sp.encode(text, return_type="proto")
    assert [p.piece for p in proto.pieces] == pieces[len(code):], (text, pieces)
    return code + [(shift + p.begin, shift + p.end) for p in proto.pieces]


def case(tokenizer, default, sp, text, target):
    key = "text_target" if target else "text"
    ids = tokenizer(**{key: text})["input_ids"]
    default_ids = default(**{key: text})["input_ids"]
    if target:
        with _Target(tokenizer):
            pieces = tokenizer.tokenize(text)
    else:
        pieces = tokenizer.tokenize(text)
    assert len(pieces) + 1 == len(ids), (text, pieces, ids)
    length = len(text.encode())
    entry = {
        "text": text,
        "ids": ids,
        "pieces": pieces,
        "spans": spans(sp, text, pieces) + [(length, length)],
        "decoded": tokenizer.decode(ids),
        "decoded_skip": tokenizer.decode(ids, skip_special_tokens=True),
    }
    for key, skip in (("decoded", False), ("decoded_skip", True)):
        with_target = tokenizer.decode(ids, skip_special_tokens=skip, use_source_tokenizer=False)
        if with_target != entry[key]:
            entry[key + "_target_spm"] = with_target
    if default_ids != ids:
        entry["default_ids"] = default_ids
    return entry


class _Target:
    """Target mode for `tokenize`, as `text_target=` switches it."""

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer

    def __enter__(self):
        self.tokenizer._switch_to_target_mode()

    def __exit__(self, *exc):
        self.tokenizer._switch_to_input_mode()


def dump(fixture):
    """JSON with one line per string, so a diff shows which strings changed."""
    fields = []
    for key, value in fixture.items():
        if key in ("source", "target"):
            cases = ",\n".join("  " + json.dumps(c, ensure_ascii=False) for c in value)
            fields.append(f' "{key}": [\n{cases}\n ]')
        else:
            fields.append(f' "{key}": {json.dumps(value, ensure_ascii=False)}')
    return "{\n" + ",\n".join(fields) + "\n}\n"


def main():
    out = sys.argv[1]
    projects, n_source, n_target, n_vocab = write_folder(out)
    tokenizer = MarianTokenizer.from_pretrained(out, split_special_tokens=True)
    default = MarianTokenizer.from_pretrained(out)
    source = processor(open(os.path.join(out, "source.spm"), "rb").read())
    target = processor(open(os.path.join(out, "target.spm"), "rb").read())
    fixture = {
        "transformers": transformers.__version__,
        "sentencepiece": spm.__version__,
        "catalogs": [{"file": name + ".mo", "project": project} for name, project in projects],
        "training_lines": {"source": n_source, "target": n_target},
        "vocab_size": n_vocab,
        "special": {"eos": tokenizer.eos_token_id, "unk": tokenizer.unk_token_id,
                    "pad": tokenizer.pad_token_id},
        "source": [case(tokenizer, default, source, text, False) for text in SOURCE],
        "target": [case(tokenizer, default, target, text, True) for text in TARGET],
    }
    with open(os.path.join(out, "expected.json"), "w", encoding="utf-8") as f:
        f.write(dump(fixture))
    for side in ("source", "target"):
        differ = [c["text"] for c in fixture[side] if "default_ids" in c]
        other = [c["text"] for c in fixture[side] if "decoded_target_spm" in c]
        print(f"{side}: {len(fixture[side])} strings; special tokens recognised change {differ}; "
              f"decoding with target.spm changes {other}")


if __name__ == "__main__":
    main()
