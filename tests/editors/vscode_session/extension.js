// Drives VS Code's own language client (the rogerwilco-rw1 extension of editors/vscode) through the language
// server, as a user would: diagnostics under the project's configuration, a quick fix, go to definition, find
// references and a change of the project's configuration. What it saw goes to $RW1_VSCODE_RESULT as JSON; each
// step waits at most $RW1_VSCODE_WAIT seconds for the server. Started by tests/test_editor_vscode.py.
"use strict";

const fs = require("fs");
const vscode = require("vscode");

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function activate() {
  const resultFile = process.env.RW1_VSCODE_RESULT;
  if (!resultFile) {
    return;
  }
  const wait = Number(process.env.RW1_VSCODE_WAIT || "600") * 1000;
  const out = { logged: [], actions: [] };
  let current = "start";
  const step = async (name, ready) => {
    current = name;
    const end = Date.now() + wait;
    for (;;) {
      const value = await ready();
      if (value) {
        return value;
      }
      if (Date.now() > end) {
        throw new Error(`waited in vain: ${name}`);
      }
      await sleep(50);
    }
  };
  try {
    current = "activation";
    const rw1 = vscode.extensions.getExtension("rogerwilco.rogerwilco-rw1");
    if (!rw1) {
      throw new Error("the rogerwilco-rw1 extension is not installed");
    }
    const { client } = await rw1.activate();
    const { capabilities, serverInfo } = client.initializeResult;
    out.server = serverInfo;
    // what VS Code's client is offered: diagnostics to pull, and edits sent as changes (2: incremental)
    out.pulls = Boolean(capabilities.diagnosticProvider);
    const sync = capabilities.textDocumentSync;
    out.sync = typeof sync === "object" ? sync.change : sync;
    client.onNotification("window/logMessage", (params) => out.logged.push(params.message));
    const folder = vscode.workspace.workspaceFolders[0].uri;
    const uri = vscode.Uri.joinPath(folder, "convo.rw1");
    const codeOf = (d) => String(typeof d.code === "object" && d.code !== null ? d.code.value : d.code);
    const codes = () => vscode.languages.getDiagnostics(uri).map(codeOf).sort().join(" ");

    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(document);
    out.language = document.languageId;
    await step("diagnostics", () => codes() !== "");
    out.diagnostics = codes();

    current = "quick fix";
    const [finding] = vscode.languages.getDiagnostics(uri);
    const actions = await vscode.commands.executeCommand("vscode.executeCodeActionProvider", uri, finding.range,
      vscode.CodeActionKind.QuickFix.value);
    out.actions = actions.map((action) => action.title);
    const [fix] = actions;
    if (fix.edit) {
      await vscode.workspace.applyEdit(fix.edit);
    }
    if (fix.command) {
      await vscode.commands.executeCommand(fix.command.command, ...(fix.command.arguments || []));
    }
    await step("quick fix", () => document.lineAt(0).text.endsWith("ask=FIX"));
    out.fixed_line = document.lineAt(0).text;
    await step("diagnostics after the fix", () => codes() === "");

    out.definition = await step("definition", async () => {
      const found = await vscode.commands.executeCommand("vscode.executeDefinitionProvider", uri,
        new vscode.Position(2, 21));
      if (!found || found.length === 0) {
        return null;
      }
      const range = found[0].targetSelectionRange || found[0].targetRange || found[0].range;
      return [range.start.line + 1, range.start.character];
    });
    out.references = await step("references", async () => {
      const found = await vscode.commands.executeCommand("vscode.executeReferenceProvider", uri,
        new vscode.Position(0, 8));
      return found && found.length ? found.map((where) => where.range.start.line + 1).sort() : null;
    });

    current = "configuration change";
    await vscode.workspace.fs.writeFile(vscode.Uri.joinPath(folder, "pyproject.toml"),
      Buffer.from('[tool.rogerwilco.lint]\nignore = ["RW003"]\n'));
    await document.save();
    await step("configuration change", () => codes() !== "");
    out.after_configuration = codes();
    out.saved = fs.readFileSync(uri.fsPath, "utf8").split("\n")[0];
  } catch (error) {
    out.failed = current;
    out.error = String((error && error.stack) || error);
  }
  fs.writeFileSync(`${resultFile}.part`, JSON.stringify(out));
  fs.renameSync(`${resultFile}.part`, resultFile); // whole when it appears
}

module.exports = { activate };
