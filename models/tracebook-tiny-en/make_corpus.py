"""Build corpus.txt for tracebook-tiny-en from two Debian packages (standard library only).

  wordnet-base (WordNet 3.0 license): every example sentence of every synset, one synset a line.
  cfi-en (public domain): "Copyright Does Not Exist" by Linus Walleij, one paragraph a line.

The lines are shuffled with a fixed seed so that the validation share (the last 5% of the
tokens) samples both sources evenly. Usage: python3 make_corpus.py WORDNET_ROOT CFI_ROOT OUT
where each ROOT is a `dpkg-deb -x` of the package.
"""

import glob
import html
import random
import re
import sys
from pathlib import Path


def wordnet_examples(root):
    """The quoted example sentences of each synset, joined into one line per synset."""
    lines = []
    for pos in ["noun", "verb", "adj", "adv"]:
        path = Path(root) / "usr/share/wordnet" / f"data.{pos}"
        for record in path.read_text(encoding="latin-1").splitlines():
            if record.startswith("  ") or " | " not in record:
                continue  # the license header, or a synset without a gloss
            gloss = record.split(" | ", 1)[1]
            examples = [e.strip() for e in re.findall(r'"([^"]+)"', gloss)]
            examples = [e[0].upper() + e[1:] for e in examples if e]
            if examples:
                lines.append(" ".join(e if e[-1] in ".!?" else e + "." for e in examples))
    return lines


def cfi_paragraphs(root):
    """The book's paragraphs as plain text, navigation and markup removed."""
    lines = []
    pages = sorted(glob.glob(str(Path(root) / "usr/share/doc/cfi-en/html/*.htm")))
    for page in pages:
        text = Path(page).read_text(encoding="latin-1")
        text = re.sub(r"(?is)<(script|style|title).*?</\1>", " ", text)
        for block in re.split(r"(?i)<p[ >]|<br\s*/?>\s*<br\s*/?>", text):
            plain = html.unescape(re.sub(r"<[^>]+>", " ", block))
            plain = re.sub(r"\s+", " ", plain).strip()
            if len(plain.split()) >= 8:  # headings, links and captions are shorter
                lines.append(plain)
    return lines


def main():
    wordnet_root, cfi_root, out = sys.argv[1:4]
    lines = wordnet_examples(wordnet_root) + cfi_paragraphs(cfi_root)
    random.Random(20241122).shuffle(lines)
    Path(out).write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
