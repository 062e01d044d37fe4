// The MCP Apps host side for worker/views_browser.mjs: AppBridge and its postMessage
// transport from @modelcontextprotocol/ext-apps (pinned), bundled by esbuild for the
// test's host page.
export { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
