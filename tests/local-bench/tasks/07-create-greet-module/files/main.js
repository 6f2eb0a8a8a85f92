// TODO: print a greeting using greet.js
