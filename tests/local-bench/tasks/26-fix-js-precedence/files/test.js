const assert = require("assert");
const { toCelsius, toFahrenheit } = require("./temp");

assert.strictEqual(toCelsius(212), 100);
assert.strictEqual(toCelsius(32), 0);
assert.strictEqual(toCelsius(-40), -40);
assert.strictEqual(toFahrenheit(100), 212);
assert.strictEqual(toFahrenheit(0), 32);
console.log("all tests passed");
