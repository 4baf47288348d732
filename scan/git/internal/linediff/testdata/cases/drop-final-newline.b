a
b
c