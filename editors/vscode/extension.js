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
    // Every kind of file the server reads (jobcheck/extract/files.py): Python, Ruby,
    // YAML (CronJobs, sidekiq.yml, docker-compose), crontab files, Procfiles, shell
    // scripts, systemd units, Dockerfiles and supervisord configs.
    documentSelector: [
      { scheme: "file", language: "python" },
      { scheme: "file", language: "ruby" },
      { scheme: "file", language: "yaml" },
      { scheme: "file", language: "shellscript" },
      { scheme: "file", language: "dockerfile" },
      { scheme: "file", pattern: "**/{crontab,crontab.*,cron,*.cron,*.crontab}" },
      { scheme: "file", pattern: "**/cron.d/*" },
      { scheme: "file", pattern: "**/{Procfile,Procfile.*}" },
      { scheme: "file", pattern: "**/*.service" },
      { scheme: "file", pattern: "**/*supervisor*.{conf,ini}" },
    ],
    initializationOptions: {
      debounce: config.get("debounce", 0.01),
      select: config.get("select", []),
      extendSelect: config.get("extendSelect", []),
      ignore: config.get("ignore", []),
    },
    // Changed settings reach the server as workspace/didChangeConfiguration.
    synchronize: { configurationSection: "jobcheck" },
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
