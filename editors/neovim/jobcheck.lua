-- jobcheck language server for Neovim's built-in LSP client.
-- Put this file in ~/.config/nvim/plugin/ (or paste it into init.lua).
-- Works on Neovim 0.7 and newer (vim.lsp.start on 0.8+, start_client on 0.7).
-- Set vim.g.jobcheck_cmd to run another jobcheck, e.g. { "/path/to/venv/bin/jobcheck", "lsp" }.

local markers = { "pyproject.toml", "setup.cfg", "setup.py", ".git" }

local function project_root(bufnr)
  local dir = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ":p:h")
  for _, marker in ipairs(markers) do
    local found = vim.fn.findfile(marker, dir .. ";")
    if found == "" then
      found = vim.fn.finddir(marker, dir .. ";")
    end
    if found ~= "" then
      return vim.fn.fnamemodify(found, ":p:h"):gsub("/%.git/?$", "")
    end
  end
  return dir
end

local clients = {} -- root -> client id (Neovim 0.7 has no vim.lsp.start)

local function start_jobcheck(args)
  local bufnr = args.buf
  local root = project_root(bufnr)
  local config = {
    name = "jobcheck",
    cmd = vim.g.jobcheck_cmd or { "jobcheck", "lsp" },
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
  }
  if vim.lsp.start then
    vim.lsp.start(config, { bufnr = bufnr })
    return
  end
  if not clients[root] or vim.lsp.client_is_stopped(clients[root]) then
    clients[root] = vim.lsp.start_client(config)
  end
  vim.lsp.buf_attach_client(bufnr, clients[root])
end

vim.api.nvim_create_autocmd("FileType", {
  pattern = "python",
  callback = start_jobcheck,
  desc = "Start the jobcheck language server",
})
