from app import add
