-- Drives a headless Neovim configured as docs/editors.md says; writes what it saw as JSON.
-- Works on Neovim 0.7 and 0.11. Every wait is for a condition, with a timeout.
local result_file = os.getenv("RESULT_FILE")
local expected = tonumber(os.getenv("EXPECTED_COUNT"))
local expected_after = tonumber(os.getenv("EXPECTED_AFTER_EDIT"))
local completion_line = tonumber(os.getenv("COMPLETION_LINE"))
local completion_char = tonumber(os.getenv("COMPLETION_CHAR"))
local out = { steps = {} }
local buf = vim.api.nvim_get_current_buf()

local function finish()
  local fh = io.open(result_file, "w")
  fh:write(vim.fn.json_encode(out))
  fh:close()
  vim.cmd("qa!")
end

local function clients()
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = buf })
  end
  return vim.tbl_values(vim.lsp.buf_get_clients(buf))
end

local function diagnostics()
  local seen = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local code = d.code
    if code == nil and d.user_data and d.user_data.lsp then
      code = d.user_data.lsp.code
    end
    table.insert(seen, { code = code, lnum = d.lnum, col = d.col, message = d.message, namespace = d.namespace })
  end
  return seen
end

local function has_code(list, code)
  for _, d in ipairs(list) do
    if d.code == code then
      return true
    end
  end
  return false
end

local function step(name, fn)
  local ok, err = pcall(fn)
  table.insert(out.steps, name)
  if not ok then
    out.error = name .. ": " .. tostring(err)
    finish()
    error(err)
  end
end

step("attach", function()
  assert(vim.wait(30000, function() return #clients() > 0 end, 50), "no client attached")
  local client = clients()[1]
  out.client_name = client.name
  out.offset_encoding = client.offset_encoding
  out.nvim_version = tostring(vim.version().major) .. "." .. tostring(vim.version().minor)
end)

step("diagnostics", function()
  assert(vim.wait(30000, function() return #vim.diagnostic.get(buf) >= expected end, 50),
    "diagnostics did not arrive: " .. #vim.diagnostic.get(buf))
  out.first_diagnostics = diagnostics()
end)

step("completion", function()
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = completion_line, character = completion_char },
  }
  local answers = vim.lsp.buf_request_sync(buf, "textDocument/completion", params, 10000) or {}
  local labels = {}
  for _, answer in pairs(answers) do
    local items = answer.result and (answer.result.items or answer.result) or {}
    for _, item in ipairs(items) do
      table.insert(labels, item.label)
    end
  end
  out.completion = labels
end)

step("cards", function()
  vim.cmd("PackCards")
  local cards_buf = vim.api.nvim_get_current_buf()
  assert(cards_buf ~= buf, "PackCards opened no buffer")
  out.cards_text = table.concat(vim.api.nvim_buf_get_lines(cards_buf, 0, -1, false), "\n")
  out.cards_filetype = vim.bo[cards_buf].filetype
  vim.cmd("bwipeout!")
  vim.api.nvim_set_current_buf(buf)
end)

step("inlay hints", function()
  -- Neovim 0.10 and later, with the documented LspAttach block: whether hints are enabled
  -- for the buffer, and the hints the client holds for it (what the UI draws inline; a
  -- headless Neovim has no UI to draw them).
  if not (vim.lsp.inlay_hint and vim.lsp.inlay_hint.get) then
    return
  end
  local function held()
    local hints = {}
    for _, item in ipairs(vim.lsp.inlay_hint.get({ bufnr = buf }) or {}) do
      local hint = item.inlay_hint
      local label = hint.label
      if type(label) == "table" then
        local parts = {}
        for _, part in ipairs(label) do
          table.insert(parts, part.value)
        end
        label = table.concat(parts)
      end
      table.insert(hints, { label = label, line = hint.position.line, character = hint.position.character })
    end
    return hints
  end
  out.inlay_enabled = vim.lsp.inlay_hint.is_enabled({ bufnr = buf })
  vim.wait(15000, function() return #held() > 0 end, 50)
  out.inlay_hints = held()
end)

step("after requests", function()
  -- Several round trips later: a second channel would have delivered its copies by now.
  local answers = vim.lsp.buf_request_sync(buf, "promptpack/topology",
    { textDocument = { uri = vim.uri_from_bufnr(buf) } }, 10000) or {}
  for _, answer in pairs(answers) do
    out.topology_nodes = #(answer.result and answer.result.nodes or {})
  end
  out.diagnostics = diagnostics()
end)

step("edit", function()
  for lnum, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local s, e = string.find(line, "usr_name", 1, true)
    if s then
      vim.api.nvim_buf_set_text(buf, lnum - 1, s - 1, lnum - 1, e, { "user_name" })
      break
    end
  end
  -- Recorded either way: the test reports what stayed (duplicates, stale entries).
  out.edit_settled = vim.wait(30000, function()
    local now = diagnostics()
    return #now == expected_after and not has_code(now, "PP502")
  end, 50)
  vim.lsp.buf_request_sync(buf, "textDocument/hover", {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = 0, character = 0 },
  }, 10000)
  out.after_edit = diagnostics()
end)

finish()
