-- Drives Neovim's own LSP client, set up as docs/lint.md says, through the language server: diagnostics,
-- a quick fix (vim.lsp.buf.code_action, the first action chosen), go to definition (vim.lsp.buf.definition)
-- and a change of the project's configuration read on save. What it saw goes to $RW1_NVIM_RESULT as JSON;
-- each step waits at most $RW1_NVIM_WAIT seconds for the server.
local wait = tonumber(os.getenv("RW1_NVIM_WAIT") or "600") * 1000
local out = { logged = {}, actions = {} }

vim.lsp.handlers["window/logMessage"] = function(_, result)
  table.insert(out.logged, result.message)
end
vim.ui.select = function(items, opts, on_choice)
  for _, item in ipairs(items) do
    table.insert(out.actions, (opts.format_item(item)))
  end
  on_choice(items[1], 1)
end

local function finish(failed)
  out.failed = failed
  local file = io.open(os.getenv("RW1_NVIM_RESULT"), "w")
  file:write(vim.fn.json_encode(out))
  file:close()
  vim.cmd("qa!")
end

local function codes()
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(0)) do
    table.insert(found, d.code)
  end
  table.sort(found)
  return table.concat(found, " ")
end

local function step(name, ready)
  if not vim.wait(wait, ready, 50) then
    finish(name)
    return false
  end
  return true
end

vim.cmd("edit convo.rw1")
if not step("diagnostics", function() return codes() ~= "" end) then return end
out.diagnostics = codes()

vim.api.nvim_win_set_cursor(0, { 1, 52 })
vim.lsp.buf.code_action()
if not step("quick fix", function() return vim.api.nvim_buf_get_lines(0, 0, 1, false)[1]:match("ask=FIX$") end) then
  return
end
out.fixed_line = vim.api.nvim_buf_get_lines(0, 0, 1, false)[1]
if not step("diagnostics after the fix", function() return codes() == "" end) then return end

vim.api.nvim_win_set_cursor(0, { 3, 21 })
vim.lsp.buf.definition()
if not step("definition", function() return vim.api.nvim_win_get_cursor(0)[1] == 1 end) then return end
out.definition = vim.api.nvim_win_get_cursor(0)

local config = io.open("pyproject.toml", "w")
config:write('[tool.rogerwilco.lint]\nignore = ["RW003"]\n')
config:close()
vim.cmd("write")
if not step("configuration change", function() return codes() ~= "" end) then return end
out.after_configuration = codes()
finish(nil)
