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
vim.cmd("qall!")
