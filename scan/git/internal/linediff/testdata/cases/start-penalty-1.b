  x
		y
  x
		y
  x

 
{
