function isAdult(age) {
  return age > 18;
}

function isSenior(age) {
  return age >= 65;
}

module.exports = { isAdult, isSenior };
