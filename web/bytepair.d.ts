// Types for bytepair.mjs: exact BPE token ids (tiktoken-compatible) from the Python core on Pyodide.
//
// Two families, one API: the OpenAI encodings ({ encoding } or { model }) and any BPE tokenizer.json
// ({ tokenizer } prepared at build time, or { tokenizerJson }). For a tokenizer.json, encode/count
// give Hugging Face tokenizers' `encode(text, add_special_tokens=False).ids` (added and special
// tokens in the text are always matched, as HF does) and decode is HF's
// `decode(ids, skip_special_tokens=False)`. The OpenAI-only options (allowedSpecial,
// disallowedSpecial, decode's errors) are accepted and ignored there, so that one piece of code
// serves both families. An option name a call does not take (a misspelling: "encodng",
// "allowSpecial") raises InvalidInputError naming it, rather than leaving the default in force.

/** Special-token policy, as in tiktoken: "all", or an array or Set of token names (OpenAI family only);
 * a bare name is refused (write [name]). */
export type SpecialTokens = "all" | readonly string[] | ReadonlySet<string>;

export interface CallOptions {
  /** Abort the call: it rejects at once with AbortError, and its Python work stops too: interrupted
   * in place where the worker shares memory with the caller (Node, Deno, Bun, cross-origin-isolated
   * pages), else by replacing the worker (the other tokenizers are opened again in the new one and
   * their calls wait meanwhile; open decoders and counts are lost: their next call is a StateError).
   * `AbortSignal.timeout(ms)` gives a call a time budget. */
  signal?: AbortSignal;
}

export interface EncodeOptions extends CallOptions {
  /** Special tokens encoded as their single id (default: none). */
  allowedSpecial?: SpecialTokens;
  /** Special tokens whose text raises DisallowedSpecialTokenError (default "all" = every one not allowed;
   * pass [] to encode such text as ordinary text). */
  disallowedSpecial?: SpecialTokens;
}

export interface Progress {
  /** Bytes the runtime has fetched so far (verified against the manifest). The runtime is shared: a
   * tokenizer created after it started counts on from what earlier loads fetched, so its bar starts
   * where theirs ended and moves only by its own files (a second encoding's ranks, a tokenizer.json). */
  loaded: number;
  /** Bytes the runtime fetches in all, this load's files included. */
  total: number;
  /** What the runtime is doing: "fetching" while bytes arrive, then (with the bar at 100%)
   * "compiling" the WebAssembly module, "starting" Python from its memory snapshot, building the
   * first encoding's or tokenizer's "ranks", and "ready". */
  phase?: "fetching" | "compiling" | "starting" | "ranks" | "ready";
  /** `loaded` and `total` as the network carries them: a file the server sent compressed (a `.br` or
   * `.gz` copy, with Content-Encoding) counts at its compressed length, once its headers arrived;
   * equal to `loaded`/`total` where nothing is compressed (local files under Node). */
  wireLoaded?: number;
  wireTotal?: number;
  /** Whether every file's response has begun, so that `wireTotal` is what the wire carries in all
   * (until then a file counts at its decoded size). */
  wireKnown?: boolean;
}

/** Give one of encoding, model, tokenizer, tokenizerJson and sentencepiece (none: encoding "o200k_base"). */
export interface CreateTokenizerOptions {
  /** Encoding name (default "o200k_base"); see listEncodings(). */
  encoding?: string;
  /** A model name (e.g. "gpt-4o"), mapped to its encoding as tiktoken maps it (exact names, then
   * prefixes; tried lower-cased too, so "GPT-4o" works). Giving it with `encoding` is an error. */
  model?: string;
  /** An open-model tokenizer prepared at build time ("llama3", "qwen2_5", "qwen3", "deepseek_v3",
   * "gpt2"; see listTokenizers()); its tokenizer.json is fetched (verified) only now. Unknown names
   * raise UnknownTokenizerError. */
  tokenizer?: string;
  /** Any tokenizer.json (BPE, WordPiece, Unigram, WordLevel): a URL (string or URL; relative to the page, or under Node to the
   * working directory; file: URLs under Node), the JSON text, the parsed object, a File or Blob, or
   * its bytes (gzip'd or not). Parsed by the runtime; nothing is sent anywhere. A malformed file
   * raises VocabFormatError, an unsupported one (a component bytepair lacks) UnsupportedTokenizerError. */
  tokenizerJson?: string | URL | object | Blob | ArrayBuffer | ArrayBufferView;
  /** A SentencePiece .model (Unigram or BPE): its bytes, a File or Blob, or a URL or path as for
   * tokenizerJson. Opened as the tokenizer.json transformers' converter builds from it (the HF face:
   * Python's Tokenizer.from_sentencepiece); encode adds no BOS/EOS. A file that is not a .model
   * raises VocabFormatError. */
  sentencepiece?: string | URL | Blob | ArrayBuffer | ArrayBufferView;
  /** The name shown in `info.name` for a tokenizerJson (default: the file's name, or its folder's
   * for ".../<folder>/tokenizer.json"). */
  name?: string;
  /** With tokenizerJson (or tokenizer): its tokenizer_config.json, as the parsed object or its JSON
   * text, for the chat calls (its chat_template and token strings). Prepared tokenizers bring their
   * own. It belongs to the tokenizer.json: tokenizers opened from the same file share it. */
  tokenizerConfig?: object | string;
  /** Where dist/ is served (default: the directory of bytepair.mjs; after bundling the API into an
   * app, the folder the app copied dist/ to). A relative URL is read against bytepair.mjs's own URL
   * (under Node: its file in node_modules), not the working directory: pass an absolute URL, such as
   * `new URL("./assets/", import.meta.url)`, for a folder of your own. */
  assetsUrl?: string | URL;
  /** Called as asset bytes arrive, for a real progress bar. */
  onProgress?: (progress: Progress) => void;
  /** Stop waiting: the runtime's start (which has no progress for 60 s at most, then WorkerError) and
   * the tokenizer's open. */
  signal?: AbortSignal;
  /** Seconds a runtime this call starts may go without progress (nothing from its worker: assets that
   * never arrive, a worker that never answers) before the start fails with WorkerError (default 60).
   * Only the call that starts the shared runtime sets it. */
  startTimeout?: number;
  /** Seconds each call of this tokenizer may run while other calls wait behind it on the shared
   * runtime (default 120; Infinity for no limit): past it, the call is stopped as an aborted one
   * is and rejects with CallTimeoutError. A call with nothing waiting behind it runs as long as it
   * needs. The open itself waits at most this long (plus 3 s) to begin behind a call that does not
   * stop, then WorkerError. */
  callTimeout?: number;
}

/** A string, UTF-8 bytes (a Uint8Array, Node's Buffer, an ArrayBuffer or a DataView), a Blob/File, or a
 * stream of bytes or strings. Anything else raises InvalidInputError. */
export type CountInput =
  | string
  | ArrayBuffer
  | ArrayBufferView
  | Blob
  | ReadableStream<Uint8Array | string>
  | AsyncIterable<Uint8Array | string>;

export interface CountOptions extends EncodeOptions {
  /** Invalid UTF-8 in bytes: InputDecodeError (default "strict") or U+FFFD ("replace"). */
  errors?: "strict" | "replace";
}

/** An input of countFiles / encodeFiles: a string, UTF-8 bytes or a Blob/File (encodeFiles reads
 * bytes exactly: a BOM is kept, invalid UTF-8 is InputDecodeError). */
export type FileInput = string | ArrayBuffer | ArrayBufferView | Blob;

export interface PoolOptions {
  /** Workers for the call: the tokenizer's own runtime and helper runtimes beside it (default:
   * navigator.hardwareConcurrency, or Node's os.availableParallelism(), at most 4, at most one per
   * input; 1: the one runtime). Where there are no workers (workerd) the inputs run one by one. */
  workers?: number;
}

/** Ids with [start, end) offsets in UTF-16 code units (JavaScript string indices). A token that holds
 * part of a character covers that whole character. */
export interface EncodedWithOffsets {
  ids: Uint32Array;
  starts: Uint32Array;
  ends: Uint32Array;
}

/** Streaming decoder: holds back incomplete UTF-8 between calls; one per stream. Its state in the
 * runtime is released by close(), by the tokenizer's dispose(), or when the decoder is garbage
 * collected unclosed. After close(), write and flush reject with ClosedError; after the tokenizer's
 * dispose(), every method rejects with DisposedError. */
export interface StreamDecoder {
  write(ids: number | ArrayLike<number>): Promise<string>;
  flush(): Promise<string>;
  /** Release the decoder (closing twice is harmless). */
  close(): Promise<void>;
}

/** What the runtime holds (Tokenizer.memoryStats), for leak checks: compare two snapshots. */
export interface MemoryStats {
  /** Size of the WebAssembly memory (it grows, never shrinks). */
  wasmBytes: number;
  /** Bytes malloc has handed out inside it and not had back (Python's objects live there); null if unknown. */
  heapBytesInUse: number | null;
  /** Stream decoders not yet released, of every tokenizer sharing the runtime. */
  openDecoders: number;
  /** Token counters of long counts still running (an aborted count closes its own). */
  openCounters: number;
  /** tokenizer.json tokenizers loaded in the runtime (each is forgotten when its last user is disposed). */
  loadedTokenizers: number;
  /** Trainings fed but not finished (an aborted one closes its own). */
  openTrainings: number;
  /** Blocks and word counts that inspect() keeps from the previous text. */
  cachedBlocks: number;
  cachedWordCounts: number;
  /** Python objects tracked by the garbage collector (after a collection). */
  pythonObjects: number;
  /** The JavaScript heap in use where the runtime runs (its worker thread under Node; Chromium,
   * coarsely, where it tells), else null; after a garbage collection where the realm exposes gc. */
  jsHeapBytes: number | null;
}

/** What a token viewer shows after an edit (Tokenizer.inspect). Offsets are UTF-16 indices. */
export interface Inspection {
  /** Number of tokens in the whole text. */
  count: number;
  /** For the first `maxTokens` tokens only: ids, [start, end) in the text, byte lengths, and their bytes joined. */
  ids: Uint32Array;
  starts: Uint32Array;
  ends: Uint32Array;
  lengths: Uint32Array;
  bytes: Uint8Array;
  /** text.length, Unicode code points, words (whitespace-separated; in scripts written without spaces,
   * such as Chinese, Japanese and Thai, one per character: Python's `bytepair.text.words.count_words`), UTF-8 bytes. */
  utf16Length: number;
  codePoints: number;
  words: number;
  utf8Bytes: number;
}

/** One chat message; fields other than role and content (name, tool_calls, reasoning_content, ...)
 * go to a tokenizer.json's template. For OpenAI models countChat follows the cookbook's rule, which
 * counts string fields only: content must be a string there (a null content, content parts or
 * tool_calls are an InvalidInputError saying so; the cookbook documents no count for them). */
export interface ChatMessage {
  role: string;
  content?: string | ReadonlyArray<{ type: "text"; text: string } | Record<string, unknown>> | null;
  [field: string]: unknown;
}

/** Options of countChat / encodeChat / applyChatTemplate. Messages and options cross as JSON. */
export interface ChatOptions extends CallOptions {
  /** OpenAI family: the model whose documented chat rule applies (gpt-3.5-turbo, gpt-4, gpt-4o,
   * gpt-4o-mini and their dated versions; gpt-oss-20b/-120b). Default: the model the tokenizer was
   * created with; an encoding-made tokenizer needs it (InvalidInputError without), and a model of
   * another encoding is refused. Other models raise UnknownModelError. */
  model?: string;
  /** Tool definitions (OpenAI's [{ type: "function", function: { name, description, parameters } }]):
   * counted by the cookbook's recipe for OpenAI models, given to a chat template as `tools`. */
  tools?: ReadonlyArray<Record<string, unknown>>;
  /** tokenizer.json only: end with the header of the assistant's reply (default false, as transformers). */
  addGenerationPrompt?: boolean;
  /** tokenizer.json only: what a special token's literal ("<|im_end|>") typed in message content does:
   * "escape" (default: encoded as text), "reject" (ReservedLiteralError, with `token`), "allow" (the
   * special id, as transformers: trusted text only). */
  specialText?: "escape" | "reject" | "allow";
  /** tokenizer.json only: another Jinja template source than the tokenizer's. */
  chatTemplate?: string;
  /** tokenizer.json only: leave the last message open for the model to continue. */
  continueFinalMessage?: boolean;
  /** tokenizer.json only: documents for retrieval templates. */
  documents?: ReadonlyArray<Record<string, unknown>>;
  /** tokenizer.json only: more template variables (e.g. { enable_thinking: false } for Qwen 3). */
  variables?: Record<string, unknown>;
  /** tokenizer.json only: seconds the template may run for the whole call (default 20); past it,
   * TemplateError (a template that loops without end). The runtime stays usable. */
  templateTimeout?: number;
  /** tokenizer.json only: characters any value the template builds, and the prompt, may hold
   * (default 2**25); past it, TemplateError. */
  templateMaxChars?: number;
}

export interface ApplyChatTemplateOptions extends ChatOptions {
  /** Also return assistantMask: 1 on the tokens of each assistant reply and the token that ends it. */
  returnAssistantMask?: boolean;
  /** Also return the rendered prompt text. */
  returnText?: boolean;
}

export interface ChatTemplateResult {
  ids: Uint32Array;
  assistantMask?: Uint8Array;
  text?: string;
}

/** What a tokenizer is (Tokenizer.info). */
export interface TokenizerInfo {
  family: "openai" | "tokenizer.json";
  /** The encoding's name, the prepared tokenizer's name, or a tokenizerJson's name. */
  name: string;
  /** Ids in the vocabulary, special and added tokens included. */
  vocabSize: number;
  /** Special tokens: the encoding's (sorted), or the tokenizer.json's special added tokens (by id). */
  specialTokens: readonly string[];
}

/** Options of Tokenizer.analyze. */
export interface AnalyzeOptions extends CallOptions {
  /** Tokenizers analysed beside this one (same assetsUrl), in this order after it. */
  compareWith?: Tokenizer | readonly Tokenizer[];
  /** Text for the fertility tables and the unused tokens: one text (labelled "text") or label -> text
   * (one row per label, plus "all"). Without it the report has no `fertility` and no `unused`. */
  corpus?: string | Readonly<Record<string, string>>;
  /** Examples listed per kind (unreachable, junk, unused ...), 1 to 1000 (default 20). */
  limit?: number;
  /** Called before each part (each tokenizer's summary, the fertility, each vocabulary report) and at the end. */
  onProgress?: (progress: { done: number; total: number; step: string }) => void;
}

/** What bytepair.analysis.analyze returns in Python (docs/ANALYSIS.md), as JSON. */
export interface AnalysisReport {
  tokenizers: { name: string; kind: string; vocab_size: number; merge_rule: string; pattern: string | null; sha256: string }[];
  /** Only with a corpus: per label (and "all") per tokenizer, tokens/words/chars/bytes and their ratios. */
  fertility?: { languages: string[]; tokenizers: string[]; rows: Record<string, string | number | null>[] };
  /** One vocabulary report per tokenizer: lengths, scripts, unreachable, split_alone, junk, numbers (unused with a corpus). */
  vocabulary: Record<string, any>[];
}

export interface Tokenizer {
  readonly info: TokenizerInfo;
  /** The encoding's name (a tokenizer.json tokenizer: info.name). */
  readonly encoding: string;
  readonly nVocab: number;
  readonly maxTokenValue: number;
  readonly eotToken: number | undefined;
  /** The model name given to createTokenizer({ model }) (the chat calls' default), else undefined. */
  readonly model: string | undefined;
  readonly specialTokens: string[];
  encode(text: string, options?: EncodeOptions): Promise<Uint32Array>;
  /** Tokens in a string, or in UTF-8 bytes: a Uint8Array (a Node Buffer, say), ArrayBuffer or
   * DataView, a Blob/File, a ReadableStream or an async iterable (Uint8Array or string chunks). Long
   * strings and all bytes are counted slice by slice through the core's token counter: bounded memory
   * for Blobs and streams, other calls are answered between slices, and `signal` stops it. Invalid
   * UTF-8 raises InputDecodeError naming the byte offset unless `errors: "replace"`. Any other input
   * (an array, a number, null) raises InvalidInputError. */
  count(input: CountInput, options?: CountOptions): Promise<number>;
  /** The same as count(). */
  countTokens(input: CountInput, options?: CountOptions): Promise<number>;
  /** count() of each input, in input order, spread over a small pool of workers: helper runtimes
   * (each its own Pyodide, started on the first call that wants one, kept for the next, ended with
   * the last tokenizer of this runtime) with this tokenizer opened in them, so the counts are
   * count()'s. Inputs go largest first to whichever worker is free; a helper still starting takes
   * none. The first error rejects the call; `signal` stops every part of it at once. */
  countFiles(inputs: Iterable<FileInput>, options?: CountOptions & PoolOptions): Promise<number[]>;
  /** encode() of each input, in input order, over the same pool as countFiles. */
  encodeFiles(inputs: Iterable<FileInput>, options?: EncodeOptions & PoolOptions): Promise<Uint32Array[]>;
  /** The count if it is at most `limit`, else false; stops as soon as the limit is exceeded. */
  isWithinTokenLimit(text: string, limit: number, options?: EncodeOptions): Promise<number | false>;
  encodeWithOffsets(text: string, options?: EncodeOptions): Promise<EncodedWithOffsets>;
  /** The count, and the first `maxTokens` (default 2000) tokens' ids, offsets and bytes, in one call; fast
   * when the text differs little from the previous call (unchanged blocks are reused). */
  inspect(text: string, options?: EncodeOptions & { maxTokens?: number }): Promise<Inspection>;
  decode(ids: ArrayLike<number>, options?: CallOptions & { errors?: "replace" | "strict" | "ignore" }): Promise<string>;
  /** Text as it is decoded from ids that arrive over time, for `for await`; a character split
   * between tokens is yielded once complete. */
  decodeStream(ids: AsyncIterable<number | ArrayLike<number>> | Iterable<number | ArrayLike<number>>, options?: CallOptions): AsyncIterable<string>;
  /** The bytes of each token (e.g. to show them in hex). */
  decodeTokenBytes(ids: ArrayLike<number>): Promise<Uint8Array[]>;
  /** A new streaming decoder; throws DisposedError at once if the tokenizer was disposed. */
  decoder(): StreamDecoder;
  /** Prompt tokens of a chat. OpenAI family: bytepair.count_chat, the rule OpenAI's cookbook documents
   * (per message and name overheads, 3 to prime the reply; `tools` by its recipe; gpt-oss: the harmony
   * rendering). tokenizer.json: the length of applyChatTemplate's ids. */
  countChat(messages: ReadonlyArray<ChatMessage>, options?: ChatOptions): Promise<number>;
  /** The ids of a chat: applyChatTemplate's (tokenizer.json), or the harmony format's for gpt-oss.
   * Other OpenAI models publish a count rule but not the ids: UnsupportedTokenizerError. */
  encodeChat(messages: ReadonlyArray<ChatMessage>, options?: ChatOptions): Promise<Uint32Array>;
  /** A tokenizer.json's chat template (its tokenizer_config.json's, or `chatTemplate`) rendered and
   * encoded as transformers' apply_chat_template does (same ids), with an assistant mask and the
   * text on request. The first call installs jinja2 (about 0.5 MB, once per runtime). A template's
   * raise_exception, or a template that fails, raises TemplateError; OpenAI encodings raise
   * UnsupportedTokenizerError. */
  applyChatTemplate(messages: ReadonlyArray<ChatMessage>, options?: ApplyChatTemplateOptions): Promise<ChatTemplateResult>;
  /** bytepair.analysis.analyze on this tokenizer (and `compareWith`): fertility on the corpus and a
   * vocabulary report per tokenizer, the same JSON as Python's, and its Markdown (`bytepair analyze`'s).
   * Each tokenizer's corpus-free parts are kept in the runtime, so a new corpus is quick; the first
   * report on a 200k vocabulary takes seconds. */
  analyze(options?: AnalyzeOptions): Promise<{ report: AnalysisReport; markdown: string }>;
  /** Diagnostics: what the runtime holds now (a leak shows as growth between two calls). */
  memoryStats(): Promise<MemoryStats>;
  /** Release this tokenizer and its open decoders; the runtime stops when no tokenizer uses it. Later
   * calls reject with DisposedError (decoder() throws it). */
  dispose(): void;
}

/** Every error the API raises is a BytepairError; its `name` says which (for errors from the core,
 * the Python exception's class, or its nearest base among these: a strict decode's UnicodeDecodeError
 * is an InputDecodeError), and each name below is also a class to test with instanceof.
 * A DisallowedSpecialTokenError and a ReservedLiteralError also have `token`: the special token found. */
export class BytepairError extends Error {
  token?: string;
}
export class InvalidInputError extends BytepairError {}
export class InvalidTokenError extends BytepairError {}
export class DisallowedSpecialTokenError extends BytepairError {}
/** Bytes that are not UTF-8 (count of a Blob or stream; decode with errors: "strict"). */
export class InputDecodeError extends BytepairError {}
export class UnknownEncodingError extends BytepairError {}
export class UnknownModelError extends BytepairError {}
export class UnknownTokenizerError extends BytepairError {}
/** A tokenizerJson that is malformed / that bytepair cannot run (not BPE, say). */
export class VocabFormatError extends BytepairError {}
export class UnsupportedTokenizerError extends BytepairError {}
/** An asset cannot be fetched (wrong assetsUrl, missing CORS headers) / does not match manifest.json. */
export class AssetError extends BytepairError {}
export class IntegrityError extends BytepairError {}
export class DisposedError extends BytepairError {}
export class ClosedError extends BytepairError {}
/** The Web Worker cannot start (a Content-Security-Policy without worker-src blob: or 'self'). */
export class WorkerError extends BytepairError {}
/** The call's AbortSignal fired (the Python work itself is stopped: see the README on interrupts). */
export class AbortError extends BytepairError {}
export class StateError extends BytepairError {}
/** A chat template failed or rejected the messages (its raise_exception message is kept), or there is none. */
export class TemplateError extends BytepairError {}
/** A special token's literal in message text with specialText "reject"; `token` names it. */
export class ReservedLiteralError extends BytepairError {}
/** A Python package the call needs is missing from the runtime (rebuild the bundle). */
export class MissingDependencyError extends BytepairError {}
/** train() cannot learn from its input or options (no text, a bad pattern, too small a vocabSize). */
export class TrainingError extends BytepairError {}
/** A call ran out of memory; the message says what was too big and what to do (count() keeps no
 * ids, decodeStream() decodes in parts). The runtime is restarted afterwards to give the memory back. */
export class InputTooLargeError extends BytepairError {}
/** A tokenizerJson's split pattern is refused: it can backtrack for ever (a repeat inside a repeat,
 * unbounded repeats side by side) or is too long; the message names the pattern. An
 * UnsupportedTokenizerError too, so a catch of that still catches it. */
export class UnsupportedPatternError extends UnsupportedTokenizerError {}
/** A call's Python work ran longer than its tokenizer's callTimeout while other calls waited on the
 * shared runtime: it was stopped (as an aborted call is) so that they could run. */
export class CallTimeoutError extends BytepairError {}

/** The name of every error class above but BytepairError itself. */
export type ErrorName =
  | "InvalidInputError" | "InvalidTokenError" | "DisallowedSpecialTokenError" | "InputDecodeError"
  | "UnknownEncodingError" | "UnknownModelError" | "UnknownTokenizerError" | "VocabFormatError"
  | "UnsupportedTokenizerError" | "AssetError" | "IntegrityError" | "DisposedError" | "ClosedError"
  | "WorkerError" | "AbortError" | "StateError" | "TemplateError" | "ReservedLiteralError" | "MissingDependencyError"
  | "TrainingError" | "InputTooLargeError" | "UnsupportedPatternError" | "CallTimeoutError";
/** Those names, in the order errors.mjs lists them. */
export const ERROR_NAMES: readonly ErrorName[];
/** An error as it crosses from the worker or Python ({ name, message, token }) as an instance of the
 * class `name` names; any other name gives a BytepairError carrying that name. */
export function errorFrom(error: { name?: string; message: string; token?: string | null }): BytepairError;

/** Create a tokenizer; the runtime starts on the first call and is shared by every tokenizer of an assets URL. */
export function createTokenizer(options?: CreateTokenizerOptions): Promise<Tokenizer>;

/** Names of the bundled encodings (reads manifest.json only). */
export function listEncodings(options?: { assetsUrl?: string | URL }): Promise<string[]>;

/** Names of the open-model tokenizers prepared at build time (reads manifest.json only). */
export function listTokenizers(options?: { assetsUrl?: string | URL }): Promise<string[]>;

/** A training's progress: counting (done/total: characters of string texts, or bytes of Blobs), then
 * merging (BPE, WordPiece; done/total: merges), with the merges learned since the previous event (at
 * most 256, the last being the done-th) as [left, right] in tokenizer.json's visible form ("Ġ" is a
 * space, "##" a WordPiece continuation), or training (Unigram: EM steps, total Hugging Face's estimate,
 * the last event done === total; WordLevel: 0 then 1 of 1), with merges []. */
export interface TrainProgress {
  phase: "counting" | "merging" | "training";
  done: number;
  total: number;
  merges: [string, string][];
}

export interface TrainOptions {
  /** The model family (default "bpe", byte-level). Each other one is Hugging Face's trainer in the
   * pipeline its quick tours use: "wordpiece" BertNormalizer + BertPreTokenizer + WordPiece decoder,
   * "wordlevel" Whitespace, "unigram" Metaspace pre-tokenizer and decoder (docs/TRAINING.md). */
  model?: "bpe" | "wordpiece" | "wordlevel" | "unigram";
  /** Vocabulary size, the special tokens included (and for "bpe" the 256 byte tokens). */
  vocabSize: number;
  /** An encoding name whose regex cuts the text ("o200k_base", the default; "gpt2", "cl100k_base") or a regex ("bpe" only). */
  pattern?: string;
  specialTokens?: readonly string[];
  /** Stop when the best pair occurs fewer times (Hugging Face's rule; WordLevel: keep words seen this often; not "unigram"). */
  minFrequency?: number;
  /** The unknown token of "wordpiece", "wordlevel" ("[UNK]") and "unigram" ("<unk>"): the first special token unless specialTokens lists it. */
  unkToken?: string;
  /** "wordpiece": BertNormalizer's lowercase (default true); the model's maxInputCharsPerWord (100). */
  lowercase?: boolean;
  maxInputCharsPerWord?: number;
  /** WordPieceTrainer's limit_alphabet, continuing_subword_prefix ("##"); initialAlphabet also UnigramTrainer's. */
  limitAlphabet?: number;
  initialAlphabet?: readonly string[];
  continuingSubwordPrefix?: string;
  /** UnigramTrainer's shrinking_factor (0.75), max_piece_length (16), n_sub_iterations (2), seed_size (1,000,000). */
  shrinkingFactor?: number;
  maxPieceLength?: number;
  nSubIterations?: number;
  seedSize?: number;
  onProgress?: (progress: TrainProgress) => void;
  /** Stops the training: at once (its worker, a worker thread under Node, ends); where there are no
   * workers, between counting slices, or while merging if onProgress aborts it. */
  signal?: AbortSignal;
  /** The trained tokenizer's name (info.name); default "trained". */
  name?: string;
  assetsUrl?: string | URL;
}

/** A trained tokenizer: a tokenizer.json tokenizer like createTokenizer's, plus its file. */
export interface TrainedTokenizer extends Tokenizer {
  /** How many merges were learned (0 for "wordlevel" and "unigram"). */
  readonly merges: number;
  /** The tokenizer.json as an object (so JSON.stringify(tok) writes the file). */
  toJSON(): object;
  /** The tokenizer.json text, as Python's Tokenizer.save writes it (Hugging Face tokenizers loads it). */
  save(): string;
}

/** Train a byte-level BPE tokenizer with Hugging Face's merges and ids (as Python's bytepair.train) on a
 * string, strings, or Blobs/Files (read line by line, line ends kept, as `bytepair train FILE` reads them);
 * with `model`, a WordPiece, WordLevel or Unigram tokenizer (as Tokenizer.train_from_iterator with HF's trainer). */
export function train(texts: string | readonly string[] | readonly Blob[], options: TrainOptions): Promise<TrainedTokenizer>;
