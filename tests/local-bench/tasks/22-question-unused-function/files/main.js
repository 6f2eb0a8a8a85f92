const { slugify, truncate, titleCase } = require("./utils");

const title = "hello brave new world";
console.log(titleCase(title));
console.log(slugify(title));
console.log(truncate(title, 10));
