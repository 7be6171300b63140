"""Printable outputs of a project's documents: what a writer hands to others.

Qt-free and store-free: it takes document content (script text, GDD markdown) and writes
files. ``model`` is what is printed (a :class:`~storyloom.outputs.model.PrintDocument` of
screenplay and page parts), ``screenplay`` turns a script into a screenplay, ``dialogue`` a dialogue graph into
parts node by node, ``fountain``,
``html`` and ``docx`` write the formats, ``markdown`` reads GDD markdown (markdown-it-py), and
``formats`` chooses a format from a file name. PDF is drawn from the HTML by Qt's text
document in the GUI layer (``storyloom.gui.pdf_writer``), handed in by the caller. See
``docs/printing.md``.
"""
