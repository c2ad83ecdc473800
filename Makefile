# make serve   build the site and serve it on http://127.0.0.1:8000/
# make check   the fast tests: unit, catalog, doctests (no browser, no build; well under a minute)
# make test    run every test (installs what it needs, a browser included)
# make site    build the deployable site into site/
# make messages  extract the templates' and calc's strings, update the catalogs
# make bench   measure speed and size (prints a table)
# make audit   Lighthouse scores for every page, mobile and desktop
# make validate  check calc's counts against PyTorch, transformers and peft (own virtualenv)
# make clean    remove what the build and the tests wrote (site/, build/)
# make distclean  also remove the virtualenvs and node_modules

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
INSTALLED := $(VENV)/.installed
NODE_MODULES := node_modules/.package-lock.json

.PHONY: site serve check test messages browser screenshots bench audit validate clean distclean

$(INSTALLED): requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

$(NODE_MODULES): package-lock.json
	npm ci --no-audit --no-fund
	touch $@

site: $(INSTALLED) $(NODE_MODULES)
	$(PY) build.py

serve: site
	$(PY) tools/serve.py site --port 8000

browser: $(INSTALLED)
	$(PY) tools/ensure_browser.py

# What needs neither a browser nor the built site: the tier to run after each edit.
check: $(INSTALLED)
	$(PY) -m pytest -m "not browser and not site"

test: $(INSTALLED) $(NODE_MODULES) browser
	$(PY) -m pytest

messages: $(INSTALLED)
	$(PY) -m sitebuild.catalogs

# What the build and the tests write; distclean also removes what `make` installed.
clean:
	rm -rf site build

distclean: clean
	rm -rf $(VENV) .venv-validate node_modules

screenshots: site browser
	$(PY) tools/screenshots.py

bench: $(INSTALLED) $(NODE_MODULES) browser
	$(PY) bench/run.py

audit: $(INSTALLED) $(NODE_MODULES) browser
	$(PY) tools/audit.py

validate: $(INSTALLED)
	$(PY) tools/validate.py
