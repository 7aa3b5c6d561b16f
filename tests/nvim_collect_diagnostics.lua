-- Run by tests/test_lsp_neovim.py inside headless Neovim: wait for jobcheck's
-- diagnostics on the current buffer and write them as JSON to $JOBCHECK_NVIM_OUT.
local out = os.getenv("JOBCHECK_NVIM_OUT")
local function from_jobcheck()
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(0)) do
    if d.source == "jobcheck" then
      table.insert(found, d)
    end
  end
  return found
end
local wanted = tonumber(os.getenv("JOBCHECK_NVIM_COUNT") or "1")
vim.wait(60000, function() return #from_jobcheck() >= wanted end, 50)
local result = {}
for _, d in ipairs(from_jobcheck()) do
  table.insert(result, {
    lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
    code = d.code, source = d.source, message = d.message, severity = d.severity,
  })
end
local file = io.open(out, "w")
file:write(vim.fn.json_encode(result))
file:close()

-- With $JOBCHECK_NVIM_ACTIONS_OUT: ask for the code actions on each diagnostic, with
-- and without context.only (Neovim's vim.lsp.buf.code_action() sends only when a
-- filter is given), and for the source.fixAll action, and write what came back.
local actions_out = os.getenv("JOBCHECK_NVIM_ACTIONS_OUT")
if actions_out then
  local answers = {}
  local function ask(d, only)
    local params = {
      textDocument = vim.lsp.util.make_text_document_params(),
      range = {
        start = { line = d.lnum, character = d.col },
        ["end"] = { line = d.end_lnum, character = d.end_col },
      },
      context = { diagnostics = {}, only = only },
    }
    local replies = vim.lsp.buf_request_sync(0, "textDocument/codeAction", params, 10000) or {}
    local titles, errors = {}, {}
    for _, reply in pairs(replies) do
      if reply.error then
        table.insert(errors, reply.error.message or tostring(reply.error.code))
      end
      for _, action in ipairs(reply.result or {}) do
        table.insert(titles, action.title)
      end
    end
    return { titles = titles, errors = errors }
  end
  for _, d in ipairs(from_jobcheck()) do
    answers[d.code] = {
      only_quickfix = ask(d, { "quickfix" }),
      unfiltered = ask(d, nil),
      fix_all = ask(d, { "source.fixAll" }),
    }
  end
  local actions_file = io.open(actions_out, "w")
  actions_file:write(vim.fn.json_encode(answers))
  actions_file:close()
end
vim.cmd("qall!")
