from util import calc_total, with_tax

cart = [10.0, 5.5, 4.5]
subtotal = calc_total(cart)
print("subtotal:", subtotal)
print("total:", with_tax(subtotal))
