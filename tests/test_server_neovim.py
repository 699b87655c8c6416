"""One real editor: a headless Neovim (Debian's `neovim`, which .ci/run
installs) with its built-in LSP client, configured by the very Lua snippet
docs/editors.md shows, opens a test file, reads hwlint's diagnostics,
applies the preferred quick fix and saves; the test reads the saved file."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hwlint.rules.missing_classification import MissingClassification

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
UNCLASSIFIED = (
    "from torch.testing._internal.common_utils import TestCase\n\n\n"
    "class TestAdd(TestCase):\n    def test_add(self):\n        self.assertEqual(1 + 1, 2)\n"
)

# After the documented snippet: wait for the diagnostics, ask for the code
# actions on the finding's line, apply the preferred one, wait for the
# diagnostics to clear, save, and write what was seen as JSON.
DRIVER = r"""
local out = os.getenv("HWLINT_NVIM_OUT")
local function finish(result)
  local f = io.open(out, "w")
  f:write(vim.fn.json_encode(result))
  f:close()
  vim.cmd("qa!")
end
local function seen(buf)
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    table.insert(found, { code = code, lnum = d.lnum, col = d.col, message = d.message })
  end
  return found
end
vim.api.nvim_create_autocmd("VimEnter", {
  callback = function()
    local buf = vim.api.nvim_get_current_buf()
    if not vim.wait(30000, function() return #vim.diagnostic.get(buf) > 0 end, 50) then
      return finish({ error = "no diagnostics" })
    end
    local before = seen(buf)
    vim.api.nvim_win_set_cursor(0, { before[1].lnum + 1, before[1].col })
    local params = vim.lsp.util.make_range_params()
    params.context = { diagnostics = {} }
    local responses = vim.lsp.buf_request_sync(buf, "textDocument/codeAction", params, 30000) or {}
    local clients = (vim.lsp.get_clients or vim.lsp.get_active_clients)()
    local chosen, titles = nil, {}
    for _, response in pairs(responses) do
      for _, action in ipairs(response.result or {}) do
        table.insert(titles, action.title)
        if action.isPreferred and chosen == nil then chosen = action end
      end
    end
    if chosen == nil then return finish({ before = before, titles = titles, error = "no quick fix" }) end
    vim.lsp.util.apply_workspace_edit(chosen.edit, clients[1].offset_encoding)
    local cleared = vim.wait(30000, function() return #vim.diagnostic.get(buf) == 0 end, 50)
    vim.cmd("write")
    finish({ before = before, titles = titles, chosen = chosen.title, cleared = cleared, after = seen(buf),
             version = vim.version().major .. "." .. vim.version().minor })
  end,
})
"""


def documented_snippet() -> str:
    """The Lua block under docs/editors.md's neovim-snippet marker."""
    page = (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
    found = re.search(r"<!-- neovim-snippet -->\n```lua\n(.*?)```", page, re.DOTALL)
    assert found is not None, "docs/editors.md has no Neovim snippet under its marker"
    return found.group(1)


def test_the_page_shows_a_snippet() -> None:
    snippet = documented_snippet()
    assert '{ "hwlint", "server" }' in snippet and "FileType" in snippet


@pytest.mark.skipif(shutil.which("nvim") is None, reason="needs Neovim (Debian's neovim; .ci/run installs it)")
def test_neovim_reads_the_diagnostics_and_applies_the_quick_fix(tmp_path: Path) -> None:
    pytest.importorskip("pygls")
    root = tmp_path / "project"
    (root / "test").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[tool.hwlint]\ninclude = ["test/**/test_*.py"]\n')
    target = root / "test" / "test_a.py"
    target.write_text(UNCLASSIFIED)
    init = tmp_path / "init.lua"
    init.write_text(documented_snippet() + DRIVER)
    out = tmp_path / "seen.json"
    # `hwlint` as the snippet runs it: this interpreter's, first on PATH.
    scripts = Path(sys.executable).parent
    env = {
        **os.environ,
        "PATH": f"{scripts}{os.pathsep}{os.environ.get('PATH', '')}",
        "HWLINT_NVIM_OUT": str(out),
        "HWLINT_NO_CACHE": "1",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    if shutil.which("hwlint", path=env["PATH"]) is None:
        pytest.skip("no `hwlint` script beside this interpreter (install the package: pip install -e .)")
    subprocess.run(
        ["nvim", "--headless", "-n", "-i", "NONE", "-u", str(init), str(target)],
        cwd=root,
        env=env,
        timeout=120,
        check=False,
        stdin=subprocess.DEVNULL,
        capture_output=True,
    )
    assert out.exists(), "Neovim wrote nothing: the driver did not finish"
    seen = json.loads(out.read_text())
    assert "error" not in seen, seen
    code = MissingClassification.code
    assert [(d["code"], d["lnum"], d["col"]) for d in seen["before"]] == [(code, 3, 0)]
    assert seen["chosen"] == "hwlint: classify TestAdd as GENERIC"
    assert seen["cleared"] is True and seen["after"] == []
    fixed = target.read_text()
    assert "    hw_classification = HardwareClassification.GENERIC\n" in fixed
    check = subprocess.run(
        [sys.executable, "-m", "hwlint", "check", "--no-cache", "test/test_a.py"],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stdout
