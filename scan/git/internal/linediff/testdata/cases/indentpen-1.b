 x
   		y
x
	x
}
	x
	x
	}
{
	    x
    x
