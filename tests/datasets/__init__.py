"""Test and benchmark data made here, as hard as users' data: rendered text lines and pages with
known ground truth (text_lines.py, text_pages.py, over the degradations of degrade.py and the
vocabulary and fonts of text_corpus.py), and Fashion-MNIST from Debian's package (fashion_mnist.py).

Calibration, training and evaluation sets come from different seeds (splits.py), so no sample is in
two of them.
"""
