// The RW1 client: starts `rogerwilco lsp` (or the command the settings give) and hands it the documents of the
// configured languages. Everything RW1 knows is the server's; this file only connects VS Code to it.
"use strict";

const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

async function activate(context) {
  const settings = vscode.workspace.getConfiguration("rogerwilco");
  const serverOptions = {
    command: settings.get("server.command", "rogerwilco"),
    args: settings.get("server.args", ["lsp"]),
  };
  const languages = settings.get("languages", ["rw1", "log", "markdown"]);
  const clientOptions = {
    documentSelector: languages.flatMap((language) => [
      { scheme: "file", language },
      { scheme: "untitled", language },
    ]),
  };
  client = new LanguageClient("rogerwilco", "RW1 (rogerwilco)", serverOptions, clientOptions);
  context.subscriptions.push(client);
  await client.start();
  return { client };
}

function deactivate() {
  return client === undefined ? undefined : client.stop();
}

module.exports = { activate, deactivate };
