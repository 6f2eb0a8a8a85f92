const { MAX_ITEMS, CURRENCY } = require("./config");

function addItem(cart, item) {
  if (cart.length >= MAX_ITEMS) {
    throw new Error("cart is full");
  }
  return [...cart, item];
}

function describe(cart) {
  return cart.length + " items (max " + MAX_ITEMS + "), prices in " + CURRENCY;
}

module.exports = { addItem, describe };
