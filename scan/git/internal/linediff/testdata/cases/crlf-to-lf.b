a
b
c
