"""English -> French pairs from Debian's gettext catalogs: every French .mo file under
ROOT/usr/share/locale/fr/LC_MESSAGES (packages extracted with dpkg-deb -x, or / itself), each
message's English msgid and French msgstr on one line, `english<TAB>french`.

Kept: singular messages without context, whitespace runs folded to one space, 2 to 60
characters of English and 2 to 80 of French, with a letter, not identical on both sides;
the first translation of each English text (catalogs in file-name order). Left out: the
iso-codes catalogs (iso_*.mo: names of languages, countries and currencies, not sentences).

Usage: python3 make_pairs.py ROOT pairs.tsv   (standard library only)
"""

import gettext
import glob
import os
import sys


def pairs(root):
    seen = {}
    for path in sorted(glob.glob(os.path.join(root, "usr/share/locale/fr/LC_MESSAGES/*.mo"))):
        if os.path.basename(path).startswith("iso_"):
            continue
        with open(path, "rb") as f:
            catalog = gettext.GNUTranslations(f)._catalog
        for english, french in sorted((k, v) for k, v in catalog.items() if isinstance(k, str)):
            if not english or not french or "\x04" in english or "\x00" in english:
                continue
            english, french = " ".join(english.split()), " ".join(french.split())
            if not (2 <= len(english) <= 60 and 2 <= len(french) <= 80):
                continue
            if english == french or not any(c.isalpha() for c in english):
                continue
            seen.setdefault(english, french)
    return seen


def main():
    root, out = sys.argv[1], sys.argv[2]
    found = pairs(root)
    with open(out, "w", encoding="utf-8") as f:
        for english, french in found.items():
            f.write(f"{english}\t{french}\n")
    print(f"{len(found)} pairs -> {out}")


if __name__ == "__main__":
    main()
