-- Drives a headless Neovim, configured as docs/editors.md says, in an arena project: the
-- problems of the opened PromptConfig, then go-to-definition from a scenario's task_type.
-- Writes what it saw as JSON. Works on Neovim 0.7 and 0.11; every wait has a timeout.
local result_file = os.getenv("RESULT_FILE")
local expected = tonumber(os.getenv("EXPECTED_COUNT"))
local scenario = os.getenv("SCENARIO_FILE")
local out = { steps = {} }
local buf = vim.api.nvim_get_current_buf()

local function finish()
  local fh = io.open(result_file, "w")
  fh:write(vim.fn.json_encode(out))
  fh:close()
  vim.cmd("qa!")
end

local function clients(bufnr)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = bufnr })
  end
  return vim.tbl_values(vim.lsp.buf_get_clients(bufnr))
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
  assert(vim.wait(30000, function() return #clients(buf) > 0 end, 50), "no client attached")
  out.client_name = clients(buf)[1].name
end)

step("diagnostics", function()
  assert(vim.wait(30000, function() return #vim.diagnostic.get(buf) >= expected end, 50),
    "diagnostics did not arrive: " .. #vim.diagnostic.get(buf))
  -- A round trip later: nothing more (or twice) arrives.
  vim.lsp.buf_request_sync(buf, "textDocument/hover", {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = 0, character = 0 },
  }, 10000)
  local seen = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local code = d.code
    if code == nil and d.user_data and d.user_data.lsp then
      code = d.user_data.lsp.code
    end
    table.insert(seen, { code = code, lnum = d.lnum, col = d.col })
  end
  out.diagnostics = seen
end)

step("definition", function()
  vim.cmd("edit " .. vim.fn.fnameescape(scenario))
  local sbuf = vim.api.nvim_get_current_buf()
  assert(vim.wait(30000, function() return #clients(sbuf) > 0 end, 50), "no client on the scenario")
  local row
  for lnum, line in ipairs(vim.api.nvim_buf_get_lines(sbuf, 0, -1, false)) do
    local s = string.find(line, "task_type: ", 1, true)
    if s then
      row = lnum
      vim.api.nvim_win_set_cursor(0, { lnum, s - 1 + #"task_type: " + 1 })
      break
    end
  end
  assert(row ~= nil, "the scenario has no task_type")
  vim.lsp.buf.definition()
  assert(vim.wait(30000, function() return vim.api.nvim_get_current_buf() ~= sbuf end, 50),
    "go-to-definition stayed in the scenario")
  out.landed_file = vim.api.nvim_buf_get_name(0)
  local cursor = vim.api.nvim_win_get_cursor(0)
  out.landed_line = cursor[1] - 1
  out.landed_col = cursor[2]
end)

finish()
