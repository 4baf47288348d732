{
b
a
a
