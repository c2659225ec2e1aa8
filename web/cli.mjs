#!/usr/bin/env node
// Command line for Node (and a demonstration that the module runs outside browsers):
//   node web/cli.mjs count FILE [--encoding NAME | --model NAME | --tokenizer NAME | --tokenizer-json PATH]
//                               [--allow-special TOKEN|all] [--special-as-text]
//   node web/cli.mjs encode FILE ...     (prints a JSON array of ids)
//   node web/cli.mjs decode FILE ...     (reads a JSON array of ids, prints text)
// FILE "-" (or none) reads standard input. Assets: dist/ next to web/ (build it with `make bundle`),
// or --assets DIR. Exit codes as in the Python CLI: 0 ok, 1 rejected input, 2 usage.
import { readFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const USAGE = "usage: node web/cli.mjs count|encode|decode [FILE ...] [--encoding NAME | --model NAME | --tokenizer NAME | " +
  "--tokenizer-json PATH] [--allow-special TOKEN] [--special-as-text] [--assets DIR]";

async function readInput(path) {
  if (path === "-") {
    const chunks = [];
    for await (const chunk of process.stdin) chunks.push(chunk);
    return Buffer.concat(chunks).toString("utf8");
  }
  return readFile(path, "utf8");
}

async function main() {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        encoding: { type: "string", short: "e" },
        model: { type: "string", short: "m" },
        tokenizer: { type: "string", short: "t" },
        "tokenizer-json": { type: "string" },
        "allow-special": { type: "string", multiple: true, default: [] },
        "special-as-text": { type: "boolean", default: false },
        assets: { type: "string" },
      },
    });
  } catch (err) {
    console.error(`bytepair: ${err.message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...files] = positionals;
  if (!["count", "encode", "decode"].includes(command)) {
    console.error(USAGE);
    return 2;
  }
  const assetsUrl = values.assets ? pathToFileURL(values.assets.replace(/\/?$/, "/")).href : new URL("../dist/", import.meta.url).href;
  const { createTokenizer } = await import(new URL("bytepair.mjs", assetsUrl).href);
  const policy = values["special-as-text"]
    ? { disallowedSpecial: [] }
    : { allowedSpecial: values["allow-special"].includes("all") ? "all" : values["allow-special"] };
  let tok;
  try {
    const which = values.model !== undefined ? { model: values.model }
      : values.tokenizer !== undefined ? { tokenizer: values.tokenizer }
      : values["tokenizer-json"] !== undefined ? { tokenizerJson: pathToFileURL(values["tokenizer-json"]) }
      : {};
    if (values.encoding !== undefined) which.encoding = values.encoding; // with another choice: a usage error
    tok = await createTokenizer({ ...which, assetsUrl });
  } catch (err) {
    console.error(`bytepair: ${err.message}`);
    const usage = ["UnknownEncodingError", "UnknownModelError", "UnknownTokenizerError", "InvalidInputError"];
    return usage.includes(err.name) ? 2 : 1;
  }
  try {
    const inputs = files.length ? files : ["-"];
    for (const path of inputs) {
      const text = await readInput(path);
      const label = inputs.length > 1 ? `\t${path}` : "";
      if (command === "count") process.stdout.write(`${await tok.count(text, policy)}${label}\n`);
      else if (command === "encode") process.stdout.write(JSON.stringify(Array.from(await tok.encode(text, policy))) + "\n");
      else process.stdout.write(await tok.decode(JSON.parse(text)));
    }
    return 0;
  } catch (err) {
    if (err.name === "DisallowedSpecialTokenError") {
      console.error("bytepair: the input contains a special token; pass --allow-special TOKEN (or all), or --special-as-text");
    } else {
      console.error(`bytepair: ${err.message}`);
    }
    return 1;
  } finally {
    tok.dispose();
  }
}

process.exitCode = await main();
