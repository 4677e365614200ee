/** `watchlog plan|apply|export --help`: the configuration file's commands (docs/config-file.md). */

const TARGET = `  --url URL        the watchlog to talk to (default WATCHLOG_URL, else http://127.0.0.1:$PORT)
  --token JWT      a login token (default WATCHLOG_TOKEN) of an admin, or a member of the
                   projects
  --api-key KEY    or an API key with the config scope (default WATCHLOG_API_KEY): its own
                   project only; it cannot create projects or set retention`;

export const CONFIG_COMMANDS = {
  plan: {
    summary: 'show what `apply -f FILE` would create, change and delete, field by field',
    text: `Usage: watchlog plan -f watchlog.yaml [--prune] [--url URL] [--token JWT | --api-key KEY]

Reads the file (YAML or JSON; \${NAME} from the environment), checks it against the schema
(GET /v1/config.schema.json), and compares it with what the API holds of the projects it names:
  + create   ~ change (each field: before → after)   -/+ replace   - delete (--prune)
Secrets show as (sensitive). A field the file leaves out keeps what the API has.
Exits 0 with no changes, 2 with changes, 1 on an error (each fault as file:line:column path:
message).

${TARGET}
  --prune          also delete what apply made (monitors, channels, pages, windows) that the
                   file no longer names`,
  },
  apply: {
    summary: 'make the API hold what FILE says (the steps `plan` shows); idempotent',
    text: `Usage: watchlog apply -f watchlog.yaml [--prune] [--url URL] [--token JWT | --api-key KEY]

Runs the steps \`watchlog plan\` shows, in order, through the REST API; a second apply changes
nothing. Monitors, channels, status pages and windows it creates are marked
\`managed_by: config-file\`; --prune deletes those the file no longer names, never one made by
hand. Every change is a system.access event of the
watchlog project, all of one apply with the same request id. Exits 0 done, 1 on an error
(what was applied before it stays).

${TARGET}
  --prune          also delete what apply made (monitors, channels, pages, windows) that the
                   file no longer names`,
  },
  export: {
    summary: 'write the configuration of projects as a file `plan` shows no change for',
    text: `Usage: watchlog export [-p PROJECT…] [-o FILE] [--url URL] [--token JWT | --api-key KEY]

Writes the projects' monitors, channels, status pages, maintenance windows, masking, retention
and anomaly settings as YAML (defaults left out). Secrets, which the API never answers, are
written as \${VARIABLE}s to set before plan or apply. Web Push channels are left out (a
browser's subscription).

  -p, --project    a project to export, by name; repeatable (default: every visible project
                   but the built-in watchlog)
  -o, --output     the file to write (default: standard output)
${TARGET}`,
  },
};
