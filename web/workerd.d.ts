// Types of `bytepair/workerd` (Cloudflare Workers): bytepair's API, with the Worker's static assets
// binding as `assets` where the other runtimes take assetsUrl.
import type { CreateTokenizerOptions, Tokenizer } from "./bytepair";

export * from "./bytepair";

/** The Worker's static assets binding (env.ASSETS), serving bytepair's dist/. */
export interface AssetsBinding {
  fetch(input: string | URL | Request, init?: RequestInit): Promise<Response>;
}

export interface WorkerdOptions {
  /** The binding of the Worker's static assets that hold bytepair's dist/ (wrangler.toml:
   * `[assets] directory = "node_modules/bytepair/dist"`, `binding = "ASSETS"`). Required. */
  assets: AssetsBinding;
}

export function createTokenizer(options: Omit<CreateTokenizerOptions, "assetsUrl"> & WorkerdOptions): Promise<Tokenizer>;
export function listEncodings(options: WorkerdOptions): Promise<string[]>;
export function listTokenizers(options: WorkerdOptions): Promise<string[]>;
