// Preloaded into server-everything's HTTP mode by the MCP tests: its `app.listen(PORT)` would
// listen on every interface; tests keep to 127.0.0.1.
const net = require("net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === "number" || typeof args[0] === "string") {
    const port = args.shift();
    const rest = typeof args[0] === "string" ? args.slice(1) : args;
    return listen.call(this, port, "127.0.0.1", ...rest);
  }
  return listen.apply(this, args);
};
