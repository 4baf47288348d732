#include <stdio.h>
	x := y + 1
{
}
