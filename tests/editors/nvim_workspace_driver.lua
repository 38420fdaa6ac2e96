-- Workspace diagnostics in a headless Neovim (0.7 or 0.11) configured as docs/editors.md says: waits
-- for the opened pack's diagnostics, then for the end of the server's workspace scan (setting
-- off) or of its check of the closed packs (on), and writes what Neovim holds for each closed
-- file as JSON. Every wait is for a condition, with a timeout.
local result_file = os.getenv("RESULT_FILE")
local expected = tonumber(os.getenv("EXPECTED_COUNT"))
local closed = vim.split(os.getenv("CLOSED_FILES"), "\n", { plain = true })
local wanted = os.getenv("WORKSPACE_DIAGNOSTICS") == "1"
local out = { closed = {}, buffers = {} }
local buf = vim.api.nvim_get_current_buf()

local function finish()
  local fh = io.open(result_file, "w")
  fh:write(vim.fn.json_encode(out))
  fh:close()
  vim.cmd("qa!")
end

local function held(bufnr)
  local seen = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local code = d.code
    if code == nil and d.user_data and d.user_data.lsp then
      code = d.user_data.lsp.code
    end
    table.insert(seen, { code = code, lnum = d.lnum, col = d.col, message = d.message })
  end
  return seen
end

-- The title of each work-done progress the server ended, with its last message: from the
-- `LspProgress` events on Neovim 0.10 and later (registered before the client starts; the
-- handler gives an end its begin's title), from `client.messages` on 0.7.
local progress_ended = {}
if vim.fn.has("nvim-0.10") == 1 then
  vim.api.nvim_create_autocmd("LspProgress", {
    callback = function(args)
      local value = args.data.params.value
      if type(value) == "table" and value.kind == "end" and value.title then
        progress_ended[value.title] = value.message or ""
      end
    end,
  })
end

local function ended()
  if vim.fn.has("nvim-0.10") == 1 then
    return progress_ended
  end
  local titles = {}
  for _, client in ipairs(vim.lsp.get_active_clients()) do
    for _, p in pairs(client.messages.progress) do
      if p.done and p.title then
        titles[p.title] = p.message or ""
      end
    end
  end
  return titles
end

local ok, err = pcall(function()
  assert(vim.wait(30000, function() return #vim.diagnostic.get(buf) >= expected end, 50),
    "the opened pack's diagnostics did not arrive: " .. #vim.diagnostic.get(buf))
  out.opened = held(buf)
  -- The scan lists the workspace's pack files; when on, every closed one is checked after it.
  local last = wanted and "pack-lsp: checking the workspace" or "pack-lsp: indexing the workspace"
  assert(vim.wait(60000, function() return ended()[last] ~= nil end, 50),
    "the server did not end its progress " .. last)
  out.progress = ended()
  for _, path in ipairs(closed) do
    local bufnr = vim.fn.bufnr(path)
    out.buffers[path] = bufnr ~= -1
    out.closed[path] = bufnr == -1 and {} or held(bufnr)
    if bufnr ~= -1 then
      out.loaded = (out.loaded or false) or vim.api.nvim_buf_is_loaded(bufnr)
    end
  end
end)
if not ok then
  out.error = tostring(err)
end
finish()
