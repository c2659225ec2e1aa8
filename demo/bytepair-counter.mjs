// The site's <bytepair-counter> URL (/bytepair-counter.mjs, used by docs that embed it): the counter
// itself ships in the bundle (web/bytepair-counter.mjs, served here as bytepair/), beside its assets.
import "./bytepair/bytepair-counter.mjs";
