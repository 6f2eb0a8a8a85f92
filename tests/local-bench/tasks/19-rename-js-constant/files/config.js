const MAX_ITEMS = 3;
const CURRENCY = "EUR";

module.exports = { MAX_ITEMS, CURRENCY };
