def restock(items, amount):
    for item in items:
        item.count += amount
        item.log("restocked", amount)
    return items


def total(items):
    return sum(item.count for item in items)
