#!/usr/bin/env node
// Interop peer: a host built on the Skills extension's reference SDK, `@olaservo/ext-skills`
// (pinned in xtask/peers/package.json), with the TypeScript SDK v2 client. It loads every skill a
// server serves the way the SDK means a host to: `listSkills`, then for each entry `getSkill`
// (which must give the listed entry back), `checkSkillLimits`, `readSkill` (SKILL.md, checked
// against the entry's size and digest and its frontmatter field by field) and
// `readSkillResource` for every other listed file (size and digest); a directory read of each
// skill's root when the server declared `directoryRead`; and `skills/get` of a URI no server
// serves, which must fail with -32602.
//
// Usage: $MCP_TEST_NODE tests/peers/ts_skills_client.mjs [--mode legacy|auto|2026-07-28]
//            [--timeout S] (--http URL | -- <server cmd> [args...])
//
// Prints ONE JSON report on stdout:
//   {server: {protocolVersion, name, skills, directoryRead},
//    skills: [{uri, name, dynamic, files: [{uri, size, kind}]}],
//    directories: {dirUri: [childUri...]}, unknownSkill: {code}, errors: [...]}
// and exits 0 iff `errors` is empty (1 otherwise, 2 on bad arguments).

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import {
  checkSkillLimits,
  getSkill,
  listSkills,
  manifestOf,
  readDirectory,
  readSkill,
  readSkillResource,
  serverSupportsDirectoryRead,
  serverSupportsSkills,
} from "@olaservo/ext-skills/client";

const USAGE =
  "usage: ts_skills_client.mjs [--mode legacy|auto|2026-07-28] [--timeout S] (--http URL | -- <server cmd> [args...])";

function parseArgs() {
  const args = process.argv.slice(2);
  const parsed = { mode: "auto", timeoutMs: 30000, url: undefined, command: undefined };
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--mode") parsed.mode = args[++i];
    else if (args[i] === "--timeout") parsed.timeoutMs = Number(args[++i]) * 1000;
    else if (args[i] === "--http") parsed.url = args[++i];
    else if (args[i] === "--") {
      parsed.command = args.slice(i + 1);
      break;
    } else {
      console.error(`unknown argument ${args[i]}; ${USAGE}`);
      process.exit(2);
    }
  }
  if (!["legacy", "auto", "2026-07-28"].includes(parsed.mode) || (!parsed.url && !parsed.command?.length)) {
    console.error(USAGE);
    process.exit(2);
  }
  return parsed;
}

/** Structural equality of JSON values. */
function same(a, b) {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}
function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object") {
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
  }
  return v;
}

const { mode, timeoutMs, url, command } = parseArgs();
const out = { server: {}, skills: [], directories: {}, unknownSkill: {}, errors: [] };
const step = async (name, f) => {
  try {
    return await f();
  } catch (e) {
    out.errors.push(`${name}: ${e?.message ?? e}`);
    return undefined;
  }
};

const client = new Client(
  { name: "ts-skills-interop-client", version: "1.0.0" },
  {
    capabilities: { extensions: { "io.modelcontextprotocol/skills": {} } },
    versionNegotiation: { mode: mode === "2026-07-28" ? { pin: "2026-07-28" } : mode },
  },
);
const transport = url
  ? new StreamableHTTPClientTransport(new URL(url))
  : new StdioClientTransport({ command: command[0], args: command.slice(1), env: { ...process.env }, stderr: "inherit" });

try {
  await client.connect(transport, { timeout: timeoutMs });
  out.server = {
    protocolVersion: client.getNegotiatedProtocolVersion?.(),
    name: client.getServerVersion()?.name,
    skills: serverSupportsSkills(client),
    directoryRead: serverSupportsDirectoryRead(client),
  };
  if (out.server.skills !== true) throw new Error("the server did not declare io.modelcontextprotocol/skills");

  const entries = (await step("skills/list", () => listSkills(client))) ?? [];
  if (entries.length === 0) out.errors.push("skills/list: no skills");
  for (const listed of entries) {
    const name = `skill ${listed.uri}`;
    const entry = await step(`${name}: skills/get`, () => getSkill(client, listed.uri));
    if (!entry) continue;
    if (!same(entry, listed)) out.errors.push(`${name}: skills/get differs from the listed entry`);
    const limits = checkSkillLimits(entry);
    if (!limits.withinLimits) out.errors.push(`${name}: over the limits: ${limits.exceeded.join("; ")}`);
    const manifest = manifestOf(entry);
    const report = { uri: entry.uri, name: entry.frontmatter?.name, dynamic: manifest === undefined, files: [] };
    out.skills.push(report);
    const skillMd = await step(`${name}: readSkill`, () =>
      readSkill(client, entry, { allowUnverified: manifest === undefined }),
    );
    if (skillMd === undefined) continue;
    report.files.push({ uri: entry.uri, size: Buffer.byteLength(skillMd, "utf-8"), kind: "text" });
    for (const file of manifest ?? []) {
      if (file.uri === entry.uri) continue;
      const content = await step(`${name}: readSkillResource ${file.uri}`, () =>
        readSkillResource(client, entry, file.uri),
      );
      if (!content) continue;
      const bytes = content.text !== undefined ? Buffer.from(content.text, "utf-8") : Buffer.from(content.blob ?? "", "base64");
      report.files.push({ uri: file.uri, size: bytes.length, kind: content.text !== undefined ? "text" : "blob" });
    }
    if (out.server.directoryRead) {
      const root = entry.uri.slice(0, -"/SKILL.md".length);
      const listing = await step(`${name}: resources/directory/read ${root}`, () => readDirectory(client, root));
      if (listing) out.directories[root] = listing.resources.map((r) => r.uri).sort();
    }
  }

  try {
    await getSkill(client, "skill://no-such-skill-anywhere/SKILL.md");
    out.errors.push("skills/get of an unknown skill succeeded");
  } catch (e) {
    out.unknownSkill = { code: e?.code };
    if (e?.code !== -32602) out.errors.push(`skills/get of an unknown skill: expected -32602, got ${e?.code}: ${e?.message}`);
  }
} catch (e) {
  out.errors.push(`connect: ${e?.message ?? e}`);
} finally {
  await client.close().catch(() => {});
}
process.stdout.write(JSON.stringify(out) + "\n");
for (const e of out.errors) console.error(`ts_skills_client: ${e}`);
process.exit(out.errors.length === 0 ? 0 : 1);
