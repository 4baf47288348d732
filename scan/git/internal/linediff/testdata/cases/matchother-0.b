
b

b
