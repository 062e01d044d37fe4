// Signs a request the way a Web Bot Auth agent does, with the web-bot-auth package's
// reference signer and the RFC 9421 Appendix B.1.4 Ed25519 test key (for the e2e test,
// e2e_identity_test.go): node agent_sign.mjs <url> <agent origin> [plain|labelled]
// prints the Signature-Agent, Signature-Input and Signature headers as JSON.
import { signatureHeaders } from "web-bot-auth";
import { signerFromJWK } from "web-bot-auth/crypto";

const KEY = { kty: "OKP", crv: "Ed25519", d: "n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU", x: "JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs" };
const [url, origin, form = "plain"] = process.argv.slice(2);
const sa = form === "plain" ? '"' + origin + '"' : 'sig1="' + origin + '"';
const now = Date.now();
const h = await signatureHeaders(new Request(url, { headers: { "signature-agent": sa } }), await signerFromJWK(KEY),
  { created: new Date(now), expires: new Date(now + 600000) });
console.log(JSON.stringify({ "Signature-Agent": sa, "Signature-Input": h["Signature-Input"], Signature: h["Signature"] }));
