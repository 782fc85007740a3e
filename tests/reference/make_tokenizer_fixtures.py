"""Tokenizer files of the Llama family's schemes and the ids Hugging Face gives on hard strings.

Writes into OUT (tests/fixtures/tokenizers):

  mistral-7b-v0.1/tokenizer.json  REAL: Mistral 7B v0.1's SentencePiece model (the same BPE with
                                  byte fallback as Llama 2), `data/tokenizer.model.v1` of the
                                  `mistral-common` package (Apache-2.0), converted as the command
                                  in docs/authoring.md converts it (transformers' LlamaTokenizer:
                                  Metaspace pre-tokenizer, prepend_scheme "always").
  llama2-recipe/tokenizer.json    MADE: a SentencePiece BPE with byte fallback trained here with
                                  Llama 2's options (dummy prefix, split digits; ids 0-2 <unk> <s>
                                  </s>), in the legacy pipeline of Llama 2's own tokenizer.json
                                  (normalizer: prepend "▁", spaces to "▁").
  llama3-recipe/tokenizer.json    MADE: a byte-level BPE trained here on CORPUS, written as a
                                  tiktoken rank file and converted by transformers'
                                  TikTokenConverter with Llama 3's split pattern, as Llama 3's
                                  tokenizer.model is converted (ignore_merges), plus Llama 3's
                                  "<|begin_of_text|> $A" post-processor and special tokens.
  qwen2-recipe/tokenizer.json     MADE: a byte-level BPE trained here with Qwen2's split pattern
                                  and NFC, converted by transformers' Qwen2Converter, plus Qwen2's
                                  <|endoftext|>, <|im_start|>, <|im_end|>.
  gemma-recipe/tokenizer.json     MADE: a SentencePiece BPE with byte fallback trained here with
                                  Gemma's trainer options (split digits, whitespace-only pieces,
                                  no dummy prefix, ids 0-3 <pad> <eos> <bos> <unk>), converted by
                                  transformers' GemmaConverter, plus the "<bos> $A" post-processor.
  expected.json                   for every tokenizer and every string of HARD_STRINGS: the ids,
                                  token strings, byte offsets and decoded text from `tokenizers`,
                                  as tracebook encodes prompts: special-token spellings read as
                                  text (encode_special_tokens), nothing added (no BOS). The script
                                  checks that transformers' AutoTokenizer gives the same ids
                                  (split_special_tokens=True, add_special_tokens=False).

The made tokenizers are NOT Llama's, Qwen's or Gemma's: only their pipeline is (normalizer,
pre-tokenizer, model options, decoder, post-processor); their vocabularies are small ones trained
on CORPUS. Training is deterministic for a given corpus and package versions.

Usage (in a venv outside the repo):
    pip install torch transformers tokenizers sentencepiece protobuf tiktoken
    pip install --no-deps mistral-common==1.13.1
    python tests/reference/make_tokenizer_fixtures.py CORPUS tests/fixtures/tokenizers
CORPUS is models/tracebook-tiny-en's corpus.txt (see make_corpus.py there).
"""

import base64
import importlib.util
import json
import os
import shutil
import sys
import tempfile
from types import SimpleNamespace

import sentencepiece as spm
import tokenizers
import transformers
from tokenizers import AddedToken, Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
from transformers import AutoTokenizer, PreTrainedTokenizerFast
from transformers.convert_slow_tokenizer import (
    Qwen2Converter,
    TikTokenConverter,
    bytes_to_unicode,
)

MISTRAL_COMMON_VERSION = "1.13.1"
VOCAB_SIZE = 4000
LLAMA3_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
QWEN2_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
LLAMA3_SPECIAL = ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"]
QWEN2_SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]

HARD_STRINGS = [
    # whitespace
    "a  b",
    "\t\n  x",
    "trailing spaces   ",
    "   ",
    "\n\n",
    " leading space",
    "  two leading spaces",
    "",
    "line one\n\nline two\r\n",
    "a\u00a0b",
    "col1\tcol2\t\tcol3",
    # digits
    "12345",
    "3.14159",
    "2026-11-27",
    "1,000,000 and 0.5%",
    "x=42;y=-7",
    # emoji
    "🙂",
    "I love it 😍!",
    "👩\u200d👩\u200d👧\u200d👦 family",
    "🇫🇷🇯🇵",
    "👍🏽",
    "a🫠b",
    # CJK, Korean, RTL
    "日本語のテキスト",
    "中文分词测试。",
    "한국어 텍스트",
    "שלום עולם",
    "مرحبا بالعالم",
    # accents, composed and decomposed
    "café",
    "cafe\u0301",
    "naïve résumé",
    "Ångström",
    "A\u030angstro\u0308m",
    "Ελληνικά",
    # special-token spellings as text
    "<s>",
    "a <s> b </s>",
    "<unk>",
    "<|endoftext|>",
    "<|begin_of_text|>hello",
    "<|im_start|>user",
    "<start_of_turn>user\n",
    "<0x41>",
    "\u2581the",
    # words
    "The robots will bring us tea.",
    " tired",
    "Hello world",
    "don't you're I'LL",
    "pneumonoultramicroscopicsilicovolcanoconiosis",
    "Supercalifragilisticexpialidocious!!!",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    'fn main() { println!("hi"); }',
    "Tokyo 東京 2026 🗼",
]


def mistral_model_file():
    spec = importlib.util.find_spec("mistral_common")
    if spec is None:
        sys.exit(f"pip install --no-deps mistral-common=={MISTRAL_COMMON_VERSION}")
    return os.path.join(os.path.dirname(spec.origin), "data", "tokenizer.model.v1")


def converted(model_file, config, work):
    """`tokenizer.model` as transformers converts it: the command docs/authoring.md gives, run
    on a folder holding the file and the tokenizer_config.json its model ships."""
    folder = tempfile.mkdtemp(dir=work)
    shutil.copy(model_file, os.path.join(folder, "tokenizer.model"))
    with open(os.path.join(folder, "tokenizer_config.json"), "w") as f:
        json.dump(config, f)
    return AutoTokenizer.from_pretrained(folder).backend_tokenizer


LLAMA_CONFIG = {"tokenizer_class": "LlamaTokenizer", "legacy": True, "add_bos_token": True,
                "bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}


def mistral(work):
    model_file = mistral_model_file()
    return converted(model_file, LLAMA_CONFIG, work), model_file


def sentencepiece_trained(corpus, work, name, **options):
    prefix = os.path.join(work, name)
    spm.SentencePieceTrainer.train(
        input=corpus, model_prefix=prefix, model_type="bpe", vocab_size=VOCAB_SIZE,
        byte_fallback=True, split_digits=True, allow_whitespace_only_pieces=True,
        split_by_unicode_script=True, split_by_number=True, split_by_whitespace=True,
        remove_extra_whitespaces=False, normalization_rule_name="identity",
        character_coverage=1.0, num_threads=1, minloglevel=2, **options,
    )
    return prefix + ".model"


def llama2(corpus, work):
    """Llama 2's trainer options, converted by transformers 5 and then given the legacy
    pipeline that transformers 4's LlamaConverter wrote into Llama 2's and Mistral 7B v0.1's
    tokenizer.json (normalizer: prepend "▁", spaces to "▁"; no pre-tokenizer; unk "<unk>")."""
    model_file = sentencepiece_trained(
        corpus, work, "llama2-recipe", add_dummy_prefix=True, unk_id=0, bos_id=1, eos_id=2, pad_id=-1,
    )
    tokenizer = json.loads(converted(model_file, LLAMA_CONFIG, work).to_str())
    tokenizer["normalizer"] = {"type": "Sequence", "normalizers": [
        {"type": "Prepend", "prepend": "\u2581"},
        {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
    ]}
    tokenizer["pre_tokenizer"] = None
    tokenizer["model"]["unk_token"] = "<unk>"
    return Tokenizer.from_str(json.dumps(tokenizer)), model_file


def gemma(corpus, work):
    model_file = sentencepiece_trained(
        corpus, work, "gemma-recipe", add_dummy_prefix=False, pad_id=0, eos_id=1, bos_id=2, unk_id=3,
        pad_piece="<pad>", eos_piece="<eos>", bos_piece="<bos>", unk_piece="<unk>",
        user_defined_symbols=["<start_of_turn>", "<end_of_turn>"],
    )
    config = {"tokenizer_class": "GemmaTokenizer", "add_bos_token": True, "bos_token": "<bos>",
              "eos_token": "<eos>", "pad_token": "<pad>", "unk_token": "<unk>"}
    return converted(model_file, config, work), model_file


def with_template(tokenizer, bos):
    """The "BOS $A" post-processor of Llama 3's tokenizer.json (ids are recorded without it)."""
    bos_id = tokenizer.token_to_id(bos)
    return processors.TemplateProcessing(
        single=f"{bos}:0 $A:0", pair=f"{bos}:0 $A:0 {bos}:1 $B:1", special_tokens=[(bos, bos_id)]
    )


def byte_level_trained(corpus, pattern, normalizer):
    """A byte-level BPE of VOCAB_SIZE tokens trained on `corpus`, split as `pattern` splits."""
    tokenizer = Tokenizer(models.BPE())
    if normalizer is not None:
        tokenizer.normalizer = normalizer
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(tokenizers.Regex(pattern), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB_SIZE, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    tokenizer.train([corpus], trainer)
    model = json.loads(tokenizer.to_str())["model"]
    return model["vocab"], [tuple(m) for m in model["merges"]]


def llama3(corpus, work):
    vocab, _ = byte_level_trained(corpus, LLAMA3_PATTERN, None)
    decode = {c: b for b, c in bytes_to_unicode().items()}
    ranks = os.path.join(work, "llama3-recipe.tiktoken")
    with open(ranks, "w") as f:
        for text, rank in sorted(vocab.items(), key=lambda kv: kv[1]):
            raw = bytes(decode[c] for c in text)
            f.write(f"{base64.b64encode(raw).decode()} {rank}\n")
    tokenizer = TikTokenConverter(ranks, pattern=LLAMA3_PATTERN, extra_special_tokens=LLAMA3_SPECIAL).converted()
    tokenizer.post_processor = processors.Sequence([
        processors.ByteLevel(trim_offsets=False),
        with_template(tokenizer, "<|begin_of_text|>"),
    ])
    return tokenizer


def qwen2(corpus):
    vocab, merges = byte_level_trained(corpus, QWEN2_PATTERN, normalizers.NFC())
    tokenizer = Qwen2Converter(SimpleNamespace(add_prefix_space=False)).converted(vocab, merges)
    tokenizer.add_special_tokens([AddedToken(t, normalized=False, special=True) for t in QWEN2_SPECIAL])
    return tokenizer


def byte_offsets(text, offsets):
    """`tokenizers` in Python reports character offsets; tracebook works in UTF-8 bytes."""
    at = [0]
    for ch in text:
        at.append(at[-1] + len(ch.encode()))
    return [[at[s], at[e]] for s, e in offsets]


def expected(path, model_file=None):
    """Every hard string as `tokenizers` encodes it, checked against transformers' tokenizer."""
    tokenizer = Tokenizer.from_file(path)
    tokenizer.encode_special_tokens = True
    fast = PreTrainedTokenizerFast(tokenizer_file=path, split_special_tokens=True)
    sp = spm.SentencePieceProcessor(model_file=model_file) if model_file else None
    cases = []
    for text in HARD_STRINGS:
        encoding = tokenizer.encode(text, add_special_tokens=False)
        ids = encoding.ids
        via_transformers = fast(text, add_special_tokens=False)["input_ids"]
        if via_transformers != ids:
            sys.exit(f"{path}: transformers gives {via_transformers} for {text!r}, tokenizers {ids}")
        case = {
            "text": text,
            "ids": ids,
            "tokens": encoding.tokens,
            "offsets": byte_offsets(text, encoding.offsets),
            "decoded": tokenizer.decode(ids, skip_special_tokens=False),
        }
        if sp is not None and sp.encode(text) != ids:
            case["sentencepiece_ids"] = sp.encode(text)
        cases.append(case)
    return cases


def one_case_a_line(fixture):
    """The fixture as JSON with one line per case, so a diff shows which strings changed."""
    def dump(value):
        return json.dumps(value, ensure_ascii=False)
    lines = ["{", f' "versions": {dump(fixture["versions"])},', ' "tokenizers": {']
    names = list(fixture["tokenizers"])
    for name in names:
        cases = fixture["tokenizers"][name]
        lines.append(f"  {dump(name)}: [")
        lines += [f"   {dump(case)}" + ("," if i + 1 < len(cases) else "") for i, case in enumerate(cases)]
        lines.append("  ]" + ("," if name != names[-1] else ""))
    lines += [" }", "}", ""]
    return "\n".join(lines)


def save(tokenizer, out, name):
    folder = os.path.join(out, name)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "tokenizer.json")
    tokenizer.save(path, pretty=False)
    return path


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    corpus, out = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as work:
        mistral_tokenizer, mistral_file = mistral(work)
        llama2_tokenizer, llama2_file = llama2(corpus, work)
        gemma_tokenizer, gemma_file = gemma(corpus, work)
        paths = {
            "mistral-7b-v0.1": (save(mistral_tokenizer, out, "mistral-7b-v0.1"), mistral_file),
            "llama2-recipe": (save(llama2_tokenizer, out, "llama2-recipe"), llama2_file),
            "llama3-recipe": (save(llama3(corpus, work), out, "llama3-recipe"), None),
            "qwen2-recipe": (save(qwen2(corpus), out, "qwen2-recipe"), None),
            "gemma-recipe": (save(gemma_tokenizer, out, "gemma-recipe"), gemma_file),
        }
        fixture = {
            "versions": {
                "tokenizers": tokenizers.__version__,
                "transformers": transformers.__version__,
                "sentencepiece": spm.__version__,
                "mistral-common": MISTRAL_COMMON_VERSION,
            },
            "tokenizers": {name: expected(*files) for name, files in paths.items()},
        }
    with open(os.path.join(out, "expected.json"), "w") as f:
        f.write(one_case_a_line(fixture))
    for name, (path, _) in paths.items():
        print(f"{name}: {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
