"""Build corpus.txt for tracebook-mini-en from four Debian packages (standard library only).

  wordnet-base (WordNet 3.0 license): every example sentence of every synset, one synset a line.
  cfi-en (public domain): "Copyright Does Not Exist" by Linus Walleij, one paragraph a line.
  fortunes, fortunes-min (BSD licence, fortune-mod): the quotations, jokes and verses of the
  collections listed in FORTUNES, one a line (the collections about computers, drugs, ethnic
  groups, politics and the sexes, the ASCII art and the nonsense ones are left out).

WordNet and cfi-en are read as tracebook-tiny-en's corpus reads them (its make_corpus.py).
The lines are shuffled with a fixed seed so that the validation share (the last 5%) samples
every source. Usage: python3 make_corpus.py WORDNET_ROOT CFI_ROOT FORTUNES_ROOT OUT, where
each ROOT is a `dpkg-deb -x` of the package (fortunes-min extracted into the same root as
fortunes).
"""

import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tracebook-tiny-en"))
from make_corpus import cfi_paragraphs, wordnet_examples  # noqa: E402

FORTUNES = [
    "cookie", "education", "food", "fortunes", "humorists", "kids", "law", "love", "magic",
    "medicine", "miscellaneous", "news", "paradoxum", "people", "pets", "platitudes", "science",
    "songs-poems", "sports", "tao", "wisdom", "work",
]


def fortunes(root):
    """Each fortune of the FORTUNES collections, its whitespace folded into one line."""
    lines = []
    folder = Path(root) / "usr/share/games/fortunes"
    for name in FORTUNES:
        path = folder / name
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for entry in re.split(r"(?m)^%\s*$", text):
            plain = re.sub(r"\s+", " ", entry).strip()
            if len(plain.split()) >= 4 and "\ufffd" not in plain:
                lines.append(plain)
    return lines


def main():
    wordnet_root, cfi_root, fortunes_root, out = sys.argv[1:5]
    lines = wordnet_examples(wordnet_root) + cfi_paragraphs(cfi_root) + fortunes(fortunes_root)
    random.Random(20261128).shuffle(lines)
    Path(out).write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
