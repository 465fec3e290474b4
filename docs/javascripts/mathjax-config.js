// MathJax 3 for the pages' math (pymdownx.arithmatex writes \( \) and \[ \]) and the tutorials'
// Markdown cells (mkdocs-jupyter keeps $ $ and $$ $$). The script itself,
// javascripts/mathjax/tex-svg.js, is copied into the site at build time (docs/_gen/hooks.py), so
// the site renders math with no network. Code (pre, code) is never searched for math.
window.MathJax = {
  tex: {
    inlineMath: [["\\(", "\\)"], ["$", "$"]],
    displayMath: [["\\[", "\\]"], ["$$", "$$"]],
    processEscapes: true,
    processEnvironments: true
  },
  svg: { fontCache: "global" },
  options: {
    ignoreHtmlClass: "tex2jax_ignore|md-search",
    processHtmlClass: "arithmatex"
  }
};
