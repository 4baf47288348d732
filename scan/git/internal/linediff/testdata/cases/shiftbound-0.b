	x

	
 x
}
 x
}
 x
			z
			z
x
	}
   		y
