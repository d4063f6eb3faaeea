console.log("acx demo")
