// Minimal VS Code client for `jobcheck lsp` (no build step: plain JavaScript).
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function createClient() {
  const config = vscode.workspace.getConfiguration("jobcheck");
  const [command, ...args] = config.get("path", ["jobcheck"]);
  const serverOptions = {
    command,
    args: [...args, "lsp"],
    transport: TransportKind.stdio,
  };
  const clientOptions = {
    documentSelector: [{ scheme: "file", language: "python" }],
    initializationOptions: { debounce: config.get("debounce", 0.01) },
  };
  return new LanguageClient("jobcheck", "jobcheck", serverOptions, clientOptions);
}

async function activate(context) {
  client = createClient();
  context.subscriptions.push(
    vscode.commands.registerCommand("jobcheck.restartServer", async () => {
      if (client) {
        await client.stop();
      }
      client = createClient();
      await client.start();
    })
  );
  await client.start();
}

async function deactivate() {
  if (client) {
    await client.stop();
  }
}

module.exports = { activate, deactivate };
