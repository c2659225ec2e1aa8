// Types for bytepair.mjs: exact BPE token ids (tiktoken-compatible) from the Python core on Pyodide.
//
// Two families, one API: the OpenAI encodings ({ encoding } or { model }) and any BPE tokenizer.json
// ({ tokenizer } prepared at build time, or { tokenizerJson }). For a tokenizer.json, encode/count
// give Hugging Face tokenizers' `encode(text, add_special_tokens=False).ids` (added and special
// tokens in the text are always matched, as HF does) and decode is HF's
// `decode(ids, skip_special_tokens=False)`. The OpenAI-only options (allowedSpecial,
// disallowedSpecial, decode's errors) are accepted and ignored there, so that one piece of code
// serves both families.

/** Special-token policy, as in tiktoken: "all", or the names of the tokens (OpenAI family only). */
export type SpecialTokens = "all" | Iterable<string>;

export interface EncodeOptions {
  /** Special tokens encoded as their single id (default: none). */
  allowedSpecial?: SpecialTokens;
  /** Special tokens whose text raises DisallowedSpecialTokenError (default "all" = every one not allowed;
   * pass [] to encode such text as ordinary text). */
  disallowedSpecial?: SpecialTokens;
}

export interface Progress {
  /** Bytes fetched so far (all assets of this load, verified against the manifest). */
  loaded: number;
  /** Bytes this load fetches in all. */
  total: number;
}

/** Give one of encoding, model, tokenizer and tokenizerJson (none: encoding "o200k_base"). */
export interface CreateTokenizerOptions {
  /** Encoding name (default "o200k_base"); see listEncodings(). */
  encoding?: string;
  /** A model name (e.g. "gpt-4o"), mapped to its encoding as tiktoken maps it. */
  model?: string;
  /** An open-model tokenizer prepared at build time ("llama3", "qwen2_5", "qwen3", "deepseek_v3",
   * "gpt2"; see listTokenizers()); its tokenizer.json is fetched (verified) only now. Unknown names
   * raise UnknownTokenizerError. */
  tokenizer?: string;
  /** Any BPE tokenizer.json: a URL (string or URL; relative to the page, or under Node to the
   * working directory; file: URLs under Node), the JSON text, the parsed object, a File or Blob, or
   * its bytes (gzip'd or not). Parsed by the runtime; nothing is sent anywhere. A malformed file
   * raises VocabFormatError, an unsupported one (not BPE, say) UnsupportedTokenizerError. */
  tokenizerJson?: string | URL | object | Blob | ArrayBuffer | ArrayBufferView;
  /** The name shown in `info.name` for a tokenizerJson (default: the file's name, or its folder's
   * for ".../<folder>/tokenizer.json"). */
  name?: string;
  /** Where dist/ is served (default: the directory of bytepair.mjs). */
  assetsUrl?: string | URL;
  /** Called as asset bytes arrive, for a real progress bar. */
  onProgress?: (progress: Progress) => void;
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
  /** tokenizer.json tokenizers loaded in the runtime (each is forgotten when its last user is disposed). */
  loadedTokenizers: number;
  /** Blocks and word counts that inspect() keeps from the previous text. */
  cachedBlocks: number;
  cachedWordCounts: number;
  /** Python objects tracked by the garbage collector (after a collection). */
  pythonObjects: number;
  /** The runtime's JavaScript heap in use (Node; Chromium, coarsely, where it tells), else null. */
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
  /** text.length, Unicode code points, whitespace-separated words, UTF-8 bytes. */
  utf16Length: number;
  codePoints: number;
  words: number;
  utf8Bytes: number;
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

export interface Tokenizer {
  readonly info: TokenizerInfo;
  /** The encoding's name (a tokenizer.json tokenizer: info.name). */
  readonly encoding: string;
  readonly nVocab: number;
  readonly maxTokenValue: number;
  readonly eotToken: number | undefined;
  readonly specialTokens: string[];
  encode(text: string, options?: EncodeOptions): Promise<Uint32Array>;
  count(text: string, options?: EncodeOptions): Promise<number>;
  /** The count if it is at most `limit`, else false; stops as soon as the limit is exceeded. */
  isWithinTokenLimit(text: string, limit: number, options?: EncodeOptions): Promise<number | false>;
  encodeWithOffsets(text: string, options?: EncodeOptions): Promise<EncodedWithOffsets>;
  /** The count, and the first `maxTokens` (default 2000) tokens' ids, offsets and bytes, in one call; fast
   * when the text differs little from the previous call (unchanged blocks are reused). */
  inspect(text: string, options?: EncodeOptions & { maxTokens?: number }): Promise<Inspection>;
  decode(ids: ArrayLike<number>, options?: { errors?: "replace" | "strict" | "ignore" }): Promise<string>;
  /** The bytes of each token (e.g. to show them in hex). */
  decodeTokenBytes(ids: ArrayLike<number>): Promise<Uint8Array[]>;
  /** A new streaming decoder; throws DisposedError at once if the tokenizer was disposed. */
  decoder(): StreamDecoder;
  /** Diagnostics: what the runtime holds now (a leak shows as growth between two calls). */
  memoryStats(): Promise<MemoryStats>;
  /** Release this tokenizer and its open decoders; the runtime stops when no tokenizer uses it. Later
   * calls reject with DisposedError (decoder() throws it). */
  dispose(): void;
}

/**
 * Errors are `Error`s whose `name` is the Python exception class (DisallowedSpecialTokenError,
 * InvalidTokenError, UnknownEncodingError, UnknownModelError, InvalidInputError ...) or one of
 * VocabFormatError and UnsupportedTokenizerError (a tokenizerJson that is malformed, or that bytepair
 * cannot run), UnknownTokenizerError (no prepared tokenizer of that name),
 * IntegrityError (an asset does not match manifest.json), AssetError (an asset cannot be fetched),
 * DisposedError (the tokenizer was disposed), ClosedError (the stream decoder was closed),
 * WorkerError. A DisallowedSpecialTokenError also has `token`: the special token found.
 */
export interface BytepairError extends Error {
  token?: string;
}

/** Create a tokenizer; the runtime starts on the first call and is shared by every tokenizer of an assets URL. */
export function createTokenizer(options?: CreateTokenizerOptions): Promise<Tokenizer>;

/** Names of the bundled encodings (reads manifest.json only). */
export function listEncodings(options?: { assetsUrl?: string | URL }): Promise<string[]>;

/** Names of the open-model tokenizers prepared at build time (reads manifest.json only). */
export function listTokenizers(options?: { assetsUrl?: string | URL }): Promise<string[]>;
