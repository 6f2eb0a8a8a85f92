const { addItem, describe } = require("./cart");

let cart = [];
cart = addItem(cart, "apple");
cart = addItem(cart, "pear");
console.log(describe(cart));
