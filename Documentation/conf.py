# SPDX-License-Identifier: GPL-2.0-only
#
# Sphinx configuration of the vgemini documentation: `make docs` renders
# Documentation/ to build/docs/html with Debian's python3-sphinx.
#
# The kernel-doc comments of uapi/*.h are pulled in with the kernel's own
# tools: scripts/kernel-doc and its Sphinx extension,
# Documentation/sphinx/kerneldoc.py, which scripts/docs.sh extracts from
# Debian's linux-source tarball into build/docs-tools/ (they are not kept in
# this repository).  A page then says
#
#     .. kernel-doc:: uapi/kgni_ioctl.h
#
# Every warning, kernel-doc's included, fails `sphinx-build -W`.

import glob
import os
import re
import subprocess
import sys

from sphinx.util import logging

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))
DOCS_TOOLS = os.environ.get('VGEMINI_DOCS_TOOLS',
                            os.path.join(REPO, 'build', 'docs-tools'))

sys.path.insert(0, os.path.join(DOCS_TOOLS, 'Documentation', 'sphinx'))

project = 'vgemini'
copyright = 'the vgemini authors; GPL-2.0-only'
author = 'the vgemini authors'

extensions = ['kerneldoc']

# kerneldoc.py's settings: the kernel-doc script, and the directory that
# the paths given to the kernel-doc directive are relative to.
kerneldoc_bin = os.path.join(DOCS_TOOLS, 'scripts', 'kernel-doc')
kerneldoc_srctree = REPO
# Let kernel-doc's own messages through to stderr (kerneldoc.py's default).
kerneldoc_verbosity = 1

# A reference to a struct or enum that no header documents any more
# (:c:struct:, :c:enum:, ...) is a warning, hence an error.
nitpicky = True
# The C library's types in the prototypes of uapi's static inline helpers
# (vgemini_le.h, ...): no page documents them.
nitpick_ignore = [('c:identifier', t) for t in
                  ('uint8_t', 'uint16_t', 'uint32_t', 'uint64_t', 'size_t')]

source_suffix = '.rst'
master_doc = 'index'
exclude_patterns = []
# As in the kernel's documentation, C is the default domain: a bare
# :struct: or :func: means :c:struct:, :c:func:.
primary_domain = 'c'
highlight_language = 'none'
language = 'en'

html_theme = 'alabaster'
html_title = 'vgemini'
html_show_sourcelink = False
html_copy_source = False
html_theme_options = {
    'description': 'an emulation of the Cray Gemini interconnect',
    'page_width': '1100px',
    'body_max_width': 'auto',
}
html_sidebars = {
    '**': ['about.html', 'navigation.html', 'searchbox.html'],
}

logger = logging.getLogger('vgemini-docs')


def check_kernel_doc(app):
    """Run kernel-doc over every uapi header and turn what it reports into
    Sphinx warnings: kerneldoc.py only copies kernel-doc's stderr to ours,
    so a malformed comment (an undescribed member, a misnamed struct)
    would not fail `sphinx-build -W` otherwise.  Also warn about a header
    with kernel-doc comments that no page pulls in."""
    if not os.access(kerneldoc_bin, os.X_OK):
        logger.warning('kernel-doc not found at %s (run scripts/docs.sh)',
                       kerneldoc_bin)
        return
    headers = sorted(glob.glob(os.path.join(REPO, 'uapi', '*.h')))
    p = subprocess.run([kerneldoc_bin, '-none', '-v'] + headers,
                       cwd=REPO, capture_output=True, text=True)
    for line in (p.stdout + p.stderr).splitlines():
        if ': warning:' in line or ': error:' in line:
            logger.warning('kernel-doc: %s', line)
    if p.returncode != 0 and not any(': error:' in l for l in
                                     p.stderr.splitlines()):
        logger.warning('kernel-doc -none failed with status %d: %s',
                       p.returncode, p.stderr.strip())

    pulled = set()
    for rst in glob.glob(os.path.join(app.srcdir, '*.rst')):
        with open(rst, encoding='utf-8') as f:
            pulled.update(re.findall(r'^\.\. kernel-doc:: *(\S+)', f.read(),
                                     re.M))
    for h in headers:
        rel = os.path.relpath(h, REPO)
        with open(h, encoding='utf-8') as f:
            has_doc = re.search(r'^/\*\*\s*$', f.read(), re.M)
        if has_doc and rel not in pulled:
            logger.warning('%s has kernel-doc comments that no page pulls '
                           'in (.. kernel-doc:: %s)', rel, rel)


# "struct foo_bar", "enum foo_bar" in a page: the type must still be
# declared or used somewhere in the C code, so that a page cannot go on
# naming a type that was renamed or removed (a :c:struct: reference to a
# uapi type is checked by nitpicky already; this covers every other type,
# and the names in code blocks and plain literals).
TYPE_NAME = re.compile(r'\b(struct|enum|union)\s+([a-z][a-z0-9]*_[a-z0-9_]*)\b')
_code_types = None


def code_types():
    global _code_types
    if _code_types is None:
        _code_types = set()
        for top, dirs, files in os.walk(REPO):
            dirs[:] = [d for d in dirs if not d.startswith('.') and
                       os.path.join(top, d) not in
                       (os.path.join(REPO, 'build'),
                        os.path.join(REPO, 'Documentation'))]
            for name in files:
                if not name.endswith(('.c', '.h', '.cc')):
                    continue
                with open(os.path.join(top, name), encoding='utf-8',
                          errors='replace') as f:
                    _code_types.update(TYPE_NAME.findall(f.read()))
    return _code_types


def check_type_names(app, docname, source):
    text = source[0]
    for m in TYPE_NAME.finditer(text):
        if (m.group(1), m.group(2)) not in code_types():
            line = text.count('\n', 0, m.start()) + 1
            logger.warning('%s %s: no such type in the code',
                           m.group(1), m.group(2),
                           location=(docname, line))


def setup(app):
    app.connect('builder-inited', check_kernel_doc)
    app.connect('source-read', check_type_names)
